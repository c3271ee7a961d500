package io.mssqlcdc.standin.tds;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The LOGIN7 record (2.2.6.4): the fixed part, then offset/length pairs (in characters) into
 * the variable part. The password is obfuscated: each byte's nibbles swapped, then XOR 0xA5.
 *
 * @param featureExtensions FeatureExt blocks by feature id (when OptionFlags3 fExtension is set)
 */
public record Login7(int tdsVersion, int packetSize, String hostName, String userName, String password,
    String appName, String serverName, String database, String language, Map<Integer, byte[]> featureExtensions) {

  private static final int FIXED = 94;

  public static Login7 parse(byte[] data) {
    ByteReader r = new ByteReader(data);
    int length = r.u32();
    if (length > data.length || length < FIXED) {
      throw new TdsProtocolException("LOGIN7 length " + length + " does not fit its " + data.length + " bytes");
    }
    int tdsVersion = r.u32();
    int packetSize = r.u32();
    r.skip(4 + 4 + 4); // ClientProgVer, ClientPID, ConnectionID
    r.u8(); // OptionFlags1
    r.u8(); // OptionFlags2
    r.u8(); // TypeFlags
    int flags3 = r.u8();
    r.skip(4 + 4); // ClientTimeZone, ClientLCID
    String host = text(data, r);
    String user = text(data, r);
    int pwOffset = r.u16();
    int pwLength = r.u16();
    String app = text(data, r);
    String server = text(data, r);
    int extOffset = r.u16();
    int extLength = r.u16();
    text(data, r); // CltIntName
    String language = text(data, r);
    String database = text(data, r);
    Map<Integer, byte[]> features = new LinkedHashMap<>();
    if ((flags3 & 0x10) != 0 && extLength >= 4) {
      int featureOffset = new ByteReader(data, extOffset, 4).u32();
      ByteReader f = new ByteReader(data, featureOffset, data.length - featureOffset);
      while (f.remaining() > 0) {
        int id = f.u8();
        if (id == 0xFF) {
          break;
        }
        int n = f.u32();
        features.put(id, f.bytes(n));
      }
    }
    return new Login7(tdsVersion, packetSize, host, user, password(data, pwOffset, pwLength), app, server, database,
        language, features);
  }

  private static String text(byte[] data, ByteReader r) {
    int offset = r.u16();
    int chars = r.u16();
    return chars == 0 ? "" : new ByteReader(data, offset, chars * 2).utf16(chars);
  }

  private static String password(byte[] data, int offset, int chars) {
    byte[] b = new byte[chars * 2];
    for (int i = 0; i < b.length; i++) {
      int x = (data[offset + i] & 0xFF) ^ 0xA5;
      b[i] = (byte) (((x & 0x0F) << 4) | ((x & 0xF0) >>> 4));
    }
    return new String(b, java.nio.charset.StandardCharsets.UTF_16LE);
  }

  /** Without the password: safe to print. */
  @Override
  public String toString() {
    return "Login7[user=" + userName + ", database=" + database + ", app=" + appName + ", packetSize=" + packetSize
        + ", features=" + featureExtensions.keySet() + "]";
  }
}

package io.mssqlcdc.standin.tds;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * PRELOGIN (2.2.6.5): a table of options (token, big-endian offset and length) ended by
 * {@code 0xFF}, then the option data. The stand-in reads the client's encryption request and
 * answers VERSION, ENCRYPTION, INSTOPT, THREADID and MARS.
 */
public final class Prelogin {
  public static final int VERSION = 0x00;
  public static final int ENCRYPTION = 0x01;
  public static final int INSTOPT = 0x02;
  public static final int THREADID = 0x03;
  public static final int MARS = 0x04;
  public static final int TRACEID = 0x05;
  public static final int FEDAUTHREQUIRED = 0x06;
  public static final int TERMINATOR = 0xFF;

  public static final int ENCRYPT_OFF = 0x00;
  public static final int ENCRYPT_ON = 0x01;
  public static final int ENCRYPT_NOT_SUP = 0x02;
  public static final int ENCRYPT_REQ = 0x03;

  private Prelogin() {}

  /** The options of a PRELOGIN message, by token. */
  public static Map<Integer, byte[]> parse(byte[] data) {
    Map<Integer, byte[]> options = new LinkedHashMap<>();
    ByteReader r = new ByteReader(data);
    while (true) {
      int token = r.u8();
      if (token == TERMINATOR) {
        return options;
      }
      int offset = r.u16be();
      int length = r.u16be();
      if (offset + length > data.length) {
        throw new TdsProtocolException("PRELOGIN option " + token + " runs past the message");
      }
      byte[] value = new byte[length];
      System.arraycopy(data, offset, value, 0, length);
      options.put(token, value);
    }
  }

  /** The client's ENCRYPTION byte, or {@link #ENCRYPT_NOT_SUP} when it sent none. */
  public static int encryption(Map<Integer, byte[]> options) {
    byte[] e = options.get(ENCRYPTION);
    return e == null || e.length == 0 ? ENCRYPT_NOT_SUP : e[0] & 0xFF;
  }

  /** The server's answer: version 16.0.1000 (SQL Server 2022), the negotiated encryption, no instance, no MARS. */
  public static byte[] response(int encryption) {
    Map<Integer, byte[]> options = new LinkedHashMap<>();
    options.put(VERSION, new byte[] {16, 0, 0x03, (byte) 0xE8, 0, 0});
    options.put(ENCRYPTION, new byte[] {(byte) encryption});
    options.put(INSTOPT, new byte[] {0});
    options.put(THREADID, new byte[0]);
    options.put(MARS, new byte[] {0});
    int tableLength = options.size() * 5 + 1;
    ByteWriter table = new ByteWriter();
    ByteWriter values = new ByteWriter();
    for (Map.Entry<Integer, byte[]> o : options.entrySet()) {
      table.u8(o.getKey()).u16be(tableLength + values.size()).u16be(o.getValue().length);
      values.bytes(o.getValue());
    }
    table.u8(TERMINATOR);
    table.bytes(values.toArray());
    return table.toArray();
  }
}

package io.mssqlcdc.standin.tds;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Client requests after login: SQL batches (2.2.6.7) and RPC requests (2.2.6.6). */
public final class Requests {
  private static final Charset CP1252 = Charset.forName("windows-1252");

  private Requests() {}

  /** Well-known procedure ids of RPC requests (2.2.6.6 ProcID). */
  public static String procName(int id) {
    return switch (id) {
      case 1 -> "sp_cursor";
      case 2 -> "sp_cursoropen";
      case 3 -> "sp_cursorprepare";
      case 4 -> "sp_cursorexecute";
      case 5 -> "sp_cursorprepexec";
      case 6 -> "sp_cursorunprepare";
      case 7 -> "sp_cursorfetch";
      case 8 -> "sp_cursoroption";
      case 9 -> "sp_cursorclose";
      case 10 -> "sp_executesql";
      case 11 -> "sp_prepare";
      case 12 -> "sp_execute";
      case 13 -> "sp_prepexec";
      case 14 -> "sp_prepexecrpc";
      case 15 -> "sp_unprepare";
      default -> "proc#" + id;
    };
  }

  /** An RPC parameter: name (often empty), status flags (0x01 output), TDS type and decoded value. */
  public record Param(String name, int status, int tdsType, Object value) {
    public boolean output() {
      return (status & 0x01) != 0;
    }
  }

  /** One RPC call of a request. */
  public record Rpc(String procName, List<Param> params) {}

  /** Skips ALL_HEADERS (2.2.5.3): a total length that includes itself. */
  private static void skipAllHeaders(ByteReader r) {
    int start = r.position();
    int total = r.u32();
    if (total < 4 || total > r.remaining() + 4) {
      throw new TdsProtocolException("ALL_HEADERS length " + total + " is invalid");
    }
    r.position(start + total);
  }

  /** The text of a SQL batch. */
  public static String sqlBatch(byte[] data) {
    ByteReader r = new ByteReader(data);
    skipAllHeaders(r);
    return r.utf16(r.remaining() / 2);
  }

  /** The calls of an RPC request (several when the client batches them with 0xFF/0x80 separators). */
  public static List<Rpc> rpc(byte[] data) {
    ByteReader r = new ByteReader(data);
    skipAllHeaders(r);
    List<Rpc> calls = new ArrayList<>();
    while (r.remaining() > 0) {
      int nameLength = r.u16();
      String name = nameLength == 0xFFFF ? procName(r.u16()) : r.utf16(nameLength);
      r.u16(); // OptionFlags
      List<Param> params = new ArrayList<>();
      while (r.remaining() > 0) {
        int peek = data[r.position()] & 0xFF;
        if (peek == 0xFF || peek == 0x80) {
          r.u8();
          break;
        }
        String pname = r.bVarchar();
        int status = r.u8();
        int type = r.u8();
        params.add(new Param(pname, status, type, value(r, type)));
      }
      calls.add(new Rpc(name, params));
    }
    return calls;
  }

  /** Reads TYPE_INFO (after the type byte) and the value of a parameter of {@code type}. */
  static Object value(ByteReader r, int type) {
    switch (type) {
      case Tds.NULLTYPE:
        return null;
      case Tds.INT1:
        return (long) r.u8();
      case Tds.INT2:
        return (long) (short) r.u16();
      case Tds.INT4:
        return (long) r.u32();
      case Tds.INT8:
        return r.u64();
      case Tds.BIT:
        return r.u8() != 0;
      case Tds.FLT4:
        return (double) Float.intBitsToFloat(r.u32());
      case Tds.FLT8:
        return Double.longBitsToDouble(r.u64());
      case Tds.INTN: {
        r.u8();
        int n = r.u8();
        if (n == 0) {
          return null;
        }
        long v = r.uN(n);
        return n == 1 ? v : n == 2 ? (long) (short) v : n == 4 ? (long) (int) v : v;
      }
      case Tds.BITN: {
        r.u8();
        int n = r.u8();
        return n == 0 ? null : r.u8() != 0;
      }
      case Tds.FLTN: {
        r.u8();
        int n = r.u8();
        return n == 0 ? null : n == 4 ? (double) Float.intBitsToFloat(r.u32()) : Double.longBitsToDouble(r.u64());
      }
      case Tds.DECIMALN:
      case Tds.NUMERICN: {
        r.u8();
        r.u8();
        int scale = r.u8();
        int n = r.u8();
        if (n == 0) {
          return null;
        }
        int sign = r.u8();
        byte[] le = r.bytes(n - 1);
        byte[] be = new byte[le.length + 1];
        for (int i = 0; i < le.length; i++) {
          be[be.length - 1 - i] = le[i];
        }
        BigDecimal d = new BigDecimal(new BigInteger(be), scale);
        return sign == 0 ? d.negate() : d;
      }
      case Tds.BIGVARCHAR:
      case Tds.BIGCHAR:
      case Tds.NVARCHAR:
      case Tds.NCHAR: {
        int max = r.u16();
        r.skip(5); // collation
        boolean unicode = type == Tds.NVARCHAR || type == Tds.NCHAR;
        byte[] b = max == Tds.MAX_MARKER ? plp(r) : shortLen(r);
        return b == null ? null : new String(b, unicode ? StandardCharsets.UTF_16LE : CP1252);
      }
      case Tds.BIGVARBINARY:
      case Tds.BIGBINARY: {
        int max = r.u16();
        return max == Tds.MAX_MARKER ? plp(r) : shortLen(r);
      }
      case Tds.NTEXT:
      case Tds.TEXT: {
        r.u32();
        r.skip(5);
        int n = r.u32();
        if (n == -1) {
          return null;
        }
        return new String(r.bytes(n), type == Tds.NTEXT ? StandardCharsets.UTF_16LE : CP1252);
      }
      case Tds.IMAGE: {
        r.u32();
        int n = r.u32();
        return n == -1 ? null : r.bytes(n);
      }
      case Tds.XML: {
        if (r.u8() != 0) {
          r.bVarchar();
          r.bVarchar();
          r.usVarchar();
        }
        byte[] b = plp(r);
        return b == null ? null : new String(b, StandardCharsets.UTF_16LE);
      }
      default:
        throw new TdsProtocolException("the stand-in does not decode RPC parameters of TDS type 0x"
            + Integer.toHexString(type));
    }
  }

  private static byte[] shortLen(ByteReader r) {
    int n = r.u16();
    return n == Tds.CHARBIN_NULL ? null : r.bytes(n);
  }

  private static byte[] plp(ByteReader r) {
    long total = r.u64();
    if (total == Tds.PLP_NULL) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (true) {
      int n = r.u32();
      if (n == 0) {
        return out.toByteArray();
      }
      out.writeBytes(r.bytes(n));
    }
  }
}

package io.mssqlcdc.standin.tds;

import io.mssqlcdc.types.SqlServerType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Locale;
import java.util.UUID;

/**
 * A SQL Server column type as TDS 7.4 sends it (2.2.5.4-2.2.5.6): its TYPE_INFO and the encoding
 * of a value. Values are the Java objects {@link io.mssqlcdc.client.ChangeCursor} documents
 * (Integer, Long, Short, Boolean, Float, Double, BigDecimal, LocalDate, LocalDateTime,
 * OffsetDateTime, String for text, time and uniqueidentifier, byte[]), or NULL. Fixed-length
 * character and binary values are padded as SQL Server pads them.
 */
public final class SqlType {
  private static final Charset CP1252 = Charset.forName("windows-1252");
  private static final LocalDate DATE_BASE = LocalDate.of(1, 1, 1);
  private static final LocalDate DATETIME_BASE = LocalDate.of(1900, 1, 1);
  private static final int TEXT_MAX = 0x7FFFFFFF;

  private final SqlServerType declared;
  private final int tdsType;
  /** Bytes of TYPE_INFO's length (1, 2 or 4), or 0 for types without one. */
  private final int length;
  /** true for (max) types and xml: values as PLP. */
  private final boolean plp;
  private final int userType;

  private SqlType(SqlServerType declared, int tdsType, int length, boolean plp, int userType) {
    this.declared = declared;
    this.tdsType = tdsType;
    this.length = length;
    this.plp = plp;
    this.userType = userType;
  }

  /** The TDS type of a SQL Server type ({@code int}, {@code nvarchar(50)}, {@code decimal(18,2)}, ...). */
  public static SqlType of(SqlServerType t) {
    String n = t.name();
    int max = t.maxLength();
    return switch (n) {
      case "bit" -> new SqlType(t, Tds.BITN, 1, false, 0);
      case "tinyint" -> new SqlType(t, Tds.INTN, 1, false, 0);
      case "smallint" -> new SqlType(t, Tds.INTN, 2, false, 0);
      case "int" -> new SqlType(t, Tds.INTN, 4, false, 0);
      case "bigint" -> new SqlType(t, Tds.INTN, 8, false, 0);
      case "real" -> new SqlType(t, Tds.FLTN, 4, false, 0);
      case "float" -> new SqlType(t, Tds.FLTN, 8, false, 0);
      case "decimal", "numeric" -> new SqlType(t, n.equals("decimal") ? Tds.DECIMALN : Tds.NUMERICN,
          decimalLength(t.precision() < 0 ? 18 : t.precision()), false, 0);
      case "money" -> new SqlType(t, Tds.MONEYN, 8, false, 0);
      case "smallmoney" -> new SqlType(t, Tds.MONEYN, 4, false, 0);
      case "date" -> new SqlType(t, Tds.DATEN, 0, false, 0);
      case "time" -> new SqlType(t, Tds.TIMEN, 0, false, 0);
      case "datetime2" -> new SqlType(t, Tds.DATETIME2N, 0, false, 0);
      case "datetimeoffset" -> new SqlType(t, Tds.DATETIMEOFFSETN, 0, false, 0);
      case "datetime" -> new SqlType(t, Tds.DATETIMN, 8, false, 0);
      case "smalldatetime" -> new SqlType(t, Tds.DATETIMN, 4, false, 0);
      case "uniqueidentifier" -> new SqlType(t, Tds.GUID, 16, false, 0);
      case "char" -> new SqlType(t, Tds.BIGCHAR, sized(max, 1, 1), false, 0);
      case "varchar" -> new SqlType(t, Tds.BIGVARCHAR, sized(max, 1, 1), max == SqlServerType.MAX_LENGTH, 0);
      case "nchar" -> new SqlType(t, Tds.NCHAR, sized(max, 1, 2), false, 0);
      case "nvarchar", "sysname" -> new SqlType(n.equals("sysname") ? SqlServerType.sized("nvarchar", 128) : t,
          Tds.NVARCHAR, sized(n.equals("sysname") ? 128 : max, 1, 2), max == SqlServerType.MAX_LENGTH, 0);
      case "binary" -> new SqlType(t, Tds.BIGBINARY, sized(max, 1, 1), false, 0);
      case "varbinary" -> new SqlType(t, Tds.BIGVARBINARY, sized(max, 1, 1), max == SqlServerType.MAX_LENGTH, 0);
      case "timestamp", "rowversion" -> new SqlType(SqlServerType.sized("binary", 8), Tds.BIGBINARY, 8, false, 0x50);
      case "xml" -> new SqlType(t, Tds.XML, 0, true, 0);
      case "text" -> new SqlType(t, Tds.TEXT, 0, false, 0);
      case "ntext" -> new SqlType(t, Tds.NTEXT, 0, false, 0);
      case "image" -> new SqlType(t, Tds.IMAGE, 0, false, 0);
      default -> throw new IllegalArgumentException("the stand-in cannot send SQL Server type " + t.declaration());
    };
  }

  /** {@code of(SqlServerType.parse(declaration))}. */
  public static SqlType parse(String declaration) {
    return of(SqlServerType.parse(declaration));
  }

  /** Bytes of a sized type: declared characters (default {@code dflt}) times bytes per character; 0xFFFF for max. */
  private static int sized(int declaredLength, int dflt, int bytesPerChar) {
    if (declaredLength == SqlServerType.MAX_LENGTH) {
      return Tds.MAX_MARKER;
    }
    return (declaredLength < 0 ? dflt : declaredLength) * bytesPerChar;
  }

  private static int decimalLength(int precision) {
    return precision <= 9 ? 5 : precision <= 19 ? 9 : precision <= 28 ? 13 : 17;
  }

  public SqlServerType declared() {
    return declared;
  }

  public int tdsType() {
    return tdsType;
  }

  private int scale() {
    return declared.datetimePrecision() < 0 ? 7 : declared.datetimePrecision();
  }

  private int decimalScale() {
    return declared.scale() < 0 ? 0 : declared.scale();
  }

  private int decimalPrecision() {
    return declared.precision() < 0 ? 18 : declared.precision();
  }

  /** UserType (4 bytes), Flags (2 bytes: nullable) and TYPE_INFO, as COLMETADATA and RETURNVALUE carry them. */
  public void writeColumnHead(ByteWriter w) {
    w.u32(userType);
    w.u16(0x0001 | 0x0008); // fNullable, usUpdateable = unknown
    writeTypeInfo(w);
  }

  /** TYPE_INFO (2.2.5.6). */
  public void writeTypeInfo(ByteWriter w) {
    w.u8(tdsType);
    switch (tdsType) {
      case Tds.INTN, Tds.BITN, Tds.FLTN, Tds.MONEYN, Tds.DATETIMN, Tds.GUID -> w.u8(length);
      case Tds.DECIMALN, Tds.NUMERICN -> w.u8(length).u8(decimalPrecision()).u8(decimalScale());
      case Tds.DATEN -> { }
      case Tds.TIMEN, Tds.DATETIME2N, Tds.DATETIMEOFFSETN -> w.u8(scale());
      case Tds.BIGCHAR, Tds.BIGVARCHAR, Tds.NCHAR, Tds.NVARCHAR -> w.u16(length).bytes(Tds.DEFAULT_COLLATION);
      case Tds.BIGBINARY, Tds.BIGVARBINARY -> w.u16(length);
      case Tds.XML -> w.u8(0); // no schema collection
      case Tds.TEXT, Tds.NTEXT -> {
        w.u32(tdsType == Tds.NTEXT ? TEXT_MAX - 1 : TEXT_MAX).bytes(Tds.DEFAULT_COLLATION);
        w.u8(1).usVarchar("stand_in");
      }
      case Tds.IMAGE -> w.u32(TEXT_MAX).u8(1).usVarchar("stand_in");
      default -> throw new IllegalStateException("no TYPE_INFO for type 0x" + Integer.toHexString(tdsType));
    }
  }

  /** The value as a ROW carries it (2.2.5.2 TYPE_VARBYTE). */
  public void writeValue(ByteWriter w, Object v) {
    try {
      encode(w, v);
    } catch (ClassCastException | ArithmeticException | IllegalArgumentException e) {
      throw new IllegalArgumentException("the stand-in cannot send " + describe(v) + " as " + declared.declaration()
          + ": " + e.getMessage(), e);
    }
  }

  private static String describe(Object v) {
    return v == null ? "NULL" : v.getClass().getSimpleName() + " " + v;
  }

  private void encode(ByteWriter w, Object v) {
    switch (tdsType) {
      case Tds.INTN -> {
        if (v == null) {
          w.u8(0);
        } else {
          w.u8(length).uN(((Number) v).longValue(), length);
        }
      }
      case Tds.BITN -> {
        if (v == null) {
          w.u8(0);
        } else {
          boolean b = v instanceof Boolean x ? x : ((Number) v).intValue() != 0;
          w.u8(1).u8(b ? 1 : 0);
        }
      }
      case Tds.FLTN -> {
        if (v == null) {
          w.u8(0);
        } else if (length == 4) {
          w.u8(4).u32(Float.floatToIntBits(((Number) v).floatValue()));
        } else {
          w.u8(8).u64(Double.doubleToLongBits(((Number) v).doubleValue()));
        }
      }
      case Tds.DECIMALN, Tds.NUMERICN -> {
        if (v == null) {
          w.u8(0);
        } else {
          BigDecimal d = decimal(v).setScale(decimalScale(), RoundingMode.HALF_UP);
          BigInteger unscaled = d.unscaledValue();
          w.u8(length).u8(unscaled.signum() < 0 ? 0 : 1);
          magnitude(w, unscaled.abs(), length - 1);
        }
      }
      case Tds.MONEYN -> {
        if (v == null) {
          w.u8(0);
        } else {
          long m = decimal(v).movePointRight(4).setScale(0, RoundingMode.HALF_UP).longValueExact();
          if (length == 4) {
            w.u8(4).u32(Math.toIntExact(m));
          } else {
            w.u8(8).u32((int) (m >>> 32)).u32((int) m);
          }
        }
      }
      case Tds.DATEN -> {
        if (v == null) {
          w.u8(0);
        } else {
          w.u8(3).uN(ChronoUnit.DAYS.between(DATE_BASE, (LocalDate) v), 3);
        }
      }
      case Tds.TIMEN -> {
        if (v == null) {
          w.u8(0);
        } else {
          LocalTime t = v instanceof LocalTime l ? l : LocalTime.parse((String) v);
          int n = timeLength();
          w.u8(n);
          timeUnits(w, t, n);
        }
      }
      case Tds.DATETIME2N -> {
        if (v == null) {
          w.u8(0);
        } else {
          LocalDateTime t = (LocalDateTime) v;
          int n = timeLength();
          w.u8(n + 3);
          timeUnits(w, t.toLocalTime(), n);
          w.uN(ChronoUnit.DAYS.between(DATE_BASE, t.toLocalDate()), 3);
        }
      }
      case Tds.DATETIMEOFFSETN -> {
        if (v == null) {
          w.u8(0);
        } else {
          OffsetDateTime o = (OffsetDateTime) v;
          LocalDateTime utc = o.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
          int n = timeLength();
          w.u8(n + 5);
          timeUnits(w, utc.toLocalTime(), n);
          w.uN(ChronoUnit.DAYS.between(DATE_BASE, utc.toLocalDate()), 3);
          w.u16(o.getOffset().getTotalSeconds() / 60);
        }
      }
      case Tds.DATETIMN -> {
        if (v == null) {
          w.u8(0);
        } else {
          LocalDateTime t = (LocalDateTime) v;
          if (length == 8) {
            long ticks = Math.round(t.toLocalTime().toNanoOfDay() * 300.0 / 1e9);
            LocalDate day = t.toLocalDate();
            if (ticks >= 300L * 86400) {
              ticks = 0;
              day = day.plusDays(1);
            }
            w.u8(8).u32((int) ChronoUnit.DAYS.between(DATETIME_BASE, day)).u32((int) ticks);
          } else {
            LocalDateTime r = t.plusSeconds(30).truncatedTo(ChronoUnit.MINUTES);
            w.u8(4).u16((int) ChronoUnit.DAYS.between(DATETIME_BASE, r.toLocalDate()))
                .u16(r.getHour() * 60 + r.getMinute());
          }
        }
      }
      case Tds.GUID -> {
        if (v == null) {
          w.u8(0);
        } else {
          w.u8(16).bytes(guidBytes(v instanceof UUID u ? u : UUID.fromString(v.toString())));
        }
      }
      case Tds.BIGCHAR, Tds.BIGVARCHAR, Tds.NCHAR, Tds.NVARCHAR -> {
        boolean unicode = tdsType == Tds.NCHAR || tdsType == Tds.NVARCHAR;
        byte[] b = v == null ? null : text((String) v, unicode);
        if (b != null && (tdsType == Tds.BIGCHAR || tdsType == Tds.NCHAR)) {
          b = pad(b, length, unicode ? new byte[] {0x20, 0} : new byte[] {0x20});
        }
        sized(w, b);
      }
      case Tds.BIGBINARY, Tds.BIGVARBINARY -> {
        byte[] b = (byte[]) v;
        if (b != null && tdsType == Tds.BIGBINARY) {
          b = pad(b, length, new byte[] {0});
        }
        sized(w, b);
      }
      case Tds.XML -> plp(w, v == null ? null : ((String) v).getBytes(StandardCharsets.UTF_16LE));
      case Tds.TEXT, Tds.NTEXT, Tds.IMAGE -> {
        byte[] b = v == null ? null
            : tdsType == Tds.IMAGE ? (byte[]) v : text((String) v, tdsType == Tds.NTEXT);
        if (b == null) {
          w.u8(0);
        } else {
          w.u8(16).bytes(new byte[16]).bytes(new byte[8]).u32(b.length).bytes(b);
        }
      }
      default -> throw new IllegalStateException("no encoding for type 0x" + Integer.toHexString(tdsType));
    }
  }

  private void sized(ByteWriter w, byte[] b) {
    if (plp) {
      plp(w, b);
    } else if (b == null) {
      w.u16(Tds.CHARBIN_NULL);
    } else {
      if (b.length > length) {
        throw new IllegalArgumentException(b.length + " bytes exceed the declared " + length);
      }
      w.u16(b.length).bytes(b);
    }
  }

  /** PLP (2.2.5.2.3): total length, chunks of at most 4000 bytes, a zero-length terminator. */
  static void plp(ByteWriter w, byte[] b) {
    if (b == null) {
      w.u64(Tds.PLP_NULL);
      return;
    }
    w.u64(b.length);
    for (int off = 0; off < b.length; off += 4000) {
      int n = Math.min(4000, b.length - off);
      w.u32(n).bytes(b, off, n);
    }
    w.u32(0);
  }

  private static byte[] pad(byte[] b, int to, byte[] unit) {
    if (b.length >= to) {
      return b;
    }
    byte[] out = Arrays.copyOf(b, to);
    for (int i = b.length; i < to; i++) {
      out[i] = unit[(i - b.length) % unit.length];
    }
    return out;
  }

  /** Code page 1252 (the collation's), unmappable characters as '?'; made once per column type (one session uses it). */
  private CharsetEncoder encoder;

  private byte[] text(String s, boolean unicode) {
    if (unicode) {
      return s.getBytes(StandardCharsets.UTF_16LE);
    }
    try {
      if (encoder == null) {
        encoder = CP1252.newEncoder().onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE).replaceWith(new byte[] {'?'});
      }
      ByteBuffer bb = encoder.encode(CharBuffer.wrap(s));
      byte[] out = new byte[bb.remaining()];
      bb.get(out);
      return out;
    } catch (java.nio.charset.CharacterCodingException x) {
      throw new IllegalArgumentException(x);
    }
  }

  private static BigDecimal decimal(Object v) {
    return v instanceof BigDecimal d ? d : new BigDecimal(v.toString());
  }

  private static void magnitude(ByteWriter w, BigInteger m, int n) {
    byte[] be = m.toByteArray();
    int significant = be.length - (be.length > 1 && be[0] == 0 ? 1 : 0);
    if (significant > n) {
      throw new ArithmeticException("value needs " + significant + " bytes, the type holds " + n);
    }
    for (int i = 0; i < n; i++) {
      int idx = be.length - 1 - i;
      w.u8(idx >= 0 ? be[idx] : 0);
    }
  }

  private int timeLength() {
    int s = scale();
    return s <= 2 ? 3 : s <= 4 ? 4 : 5;
  }

  private void timeUnits(ByteWriter w, LocalTime t, int n) {
    long units = t.toNanoOfDay() / (long) Math.pow(10, 9 - scale());
    w.uN(units, n);
  }

  /** The wire order of a uniqueidentifier: the first three groups little-endian, the rest as written. */
  public static byte[] guidBytes(UUID u) {
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
    byte[] be = b.array();
    return new byte[] {be[3], be[2], be[1], be[0], be[5], be[4], be[7], be[6],
        be[8], be[9], be[10], be[11], be[12], be[13], be[14], be[15]};
  }

  @Override
  public String toString() {
    return declared.declaration().toLowerCase(Locale.ROOT);
  }
}

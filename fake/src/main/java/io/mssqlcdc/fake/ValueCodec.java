package io.mssqlcdc.fake;

import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Type-tagged binary values (one tag byte, then a fixed or length-prefixed payload), for the
 * Java classes of {@link io.mssqlcdc.client.ChangeCursor}. Shared by change segments, table
 * files and the manifest. Tags are part of the on-disk format (docs/FAKE.md): never renumber.
 */
final class ValueCodec {
  private ValueCodec() {}

  static final byte NULL = 0;
  static final byte BOOLEAN = 1;
  static final byte SHORT = 2;
  static final byte INT = 3;
  static final byte LONG = 4;
  static final byte FLOAT = 5;
  static final byte DOUBLE = 6;
  /** BigDecimal whose unscaled value fits a long: scale (byte), unscaled (long). */
  static final byte DECIMAL_SMALL = 7;
  /** Any BigDecimal: scale (int), length (int), two's-complement bytes. */
  static final byte DECIMAL_BIG = 8;
  /** LocalDate: epoch day (long). */
  static final byte DATE = 9;
  /** LocalDateTime: epoch second at UTC (long), nano (int). */
  static final byte DATETIME = 10;
  /** OffsetDateTime: epoch second of the local time (long), nano (int), offset seconds (int). */
  static final byte DATETIME_OFFSET = 11;
  /** String: UTF-8 length (int), bytes. */
  static final byte STRING = 12;
  /** byte[]: length (int), bytes. */
  static final byte BYTES = 13;

  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  static void write(DataOutputStream out, Object v) throws IOException {
    if (v == null) {
      out.writeByte(NULL);
    } else if (v instanceof String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      out.writeByte(STRING);
      out.writeInt(b.length);
      out.write(b);
    } else if (v instanceof Integer i) {
      out.writeByte(INT);
      out.writeInt(i);
    } else if (v instanceof Long l) {
      out.writeByte(LONG);
      out.writeLong(l);
    } else if (v instanceof BigDecimal d) {
      BigInteger unscaled = d.unscaledValue();
      if (d.scale() >= 0 && d.scale() <= 127 && unscaled.compareTo(LONG_MIN) >= 0 && unscaled.compareTo(LONG_MAX) <= 0) {
        out.writeByte(DECIMAL_SMALL);
        out.writeByte(d.scale());
        out.writeLong(unscaled.longValue());
      } else {
        byte[] b = unscaled.toByteArray();
        out.writeByte(DECIMAL_BIG);
        out.writeInt(d.scale());
        out.writeInt(b.length);
        out.write(b);
      }
    } else if (v instanceof LocalDateTime t) {
      out.writeByte(DATETIME);
      out.writeLong(t.toEpochSecond(ZoneOffset.UTC));
      out.writeInt(t.getNano());
    } else if (v instanceof Boolean b) {
      out.writeByte(BOOLEAN);
      out.writeBoolean(b);
    } else if (v instanceof Short s) {
      out.writeByte(SHORT);
      out.writeShort(s);
    } else if (v instanceof Float f) {
      out.writeByte(FLOAT);
      out.writeFloat(f);
    } else if (v instanceof Double d) {
      out.writeByte(DOUBLE);
      out.writeDouble(d);
    } else if (v instanceof LocalDate d) {
      out.writeByte(DATE);
      out.writeLong(d.toEpochDay());
    } else if (v instanceof OffsetDateTime t) {
      out.writeByte(DATETIME_OFFSET);
      out.writeLong(t.toLocalDateTime().toEpochSecond(ZoneOffset.UTC));
      out.writeInt(t.getNano());
      out.writeInt(t.getOffset().getTotalSeconds());
    } else if (v instanceof byte[] b) {
      out.writeByte(BYTES);
      out.writeInt(b.length);
      out.write(b);
    } else {
      throw new IllegalArgumentException("The fake cannot store a " + v.getClass().getName()
          + " value; values are the Java classes listed in ChangeCursor's Javadoc.");
    }
  }

  static Object read(FastInput in) {
    byte tag = in.readByte();
    switch (tag) {
      case NULL:
        return null;
      case STRING:
        return in.readUtf8(in.readInt());
      case INT:
        return in.readInt();
      case LONG:
        return in.readLong();
      case DECIMAL_SMALL: {
        int scale = in.readByte();
        return BigDecimal.valueOf(in.readLong(), scale);
      }
      case DECIMAL_BIG: {
        int scale = in.readInt();
        return new BigDecimal(new BigInteger(in.readBytes(in.readInt())), scale);
      }
      case DATETIME:
        return LocalDateTime.ofEpochSecond(in.readLong(), in.readInt(), ZoneOffset.UTC);
      case BOOLEAN:
        return in.readByte() != 0;
      case SHORT:
        return in.readShort();
      case FLOAT:
        return Float.intBitsToFloat(in.readInt());
      case DOUBLE:
        return Double.longBitsToDouble(in.readLong());
      case DATE:
        return LocalDate.ofEpochDay(in.readLong());
      case DATETIME_OFFSET: {
        LocalDateTime local = LocalDateTime.ofEpochSecond(in.readLong(), in.readInt(), ZoneOffset.UTC);
        return OffsetDateTime.of(local, ZoneOffset.ofTotalSeconds(in.readInt()));
      }
      case BYTES:
        return in.readBytes(in.readInt());
      default:
        throw new IllegalStateException("unknown value tag " + tag);
    }
  }

  /** Skips one value without building it (columns a query does not ask for). */
  static void skip(FastInput in) {
    byte tag = in.readByte();
    switch (tag) {
      case NULL -> { }
      case BOOLEAN -> in.skip(1);
      case SHORT -> in.skip(2);
      case INT, FLOAT -> in.skip(4);
      case LONG, DOUBLE, DATE -> in.skip(8);
      case DECIMAL_SMALL -> in.skip(9);
      case DECIMAL_BIG -> {
        in.skip(4);
        in.skip(in.readInt());
      }
      case DATETIME -> in.skip(12);
      case DATETIME_OFFSET -> in.skip(16);
      case STRING, BYTES -> in.skip(in.readInt());
      default -> throw new IllegalStateException("unknown value tag " + tag);
    }
  }

  static void writeString(DataOutputStream out, String s) throws IOException {
    write(out, s);
  }

  static String readString(FastInput in) {
    return (String) read(in);
  }
}

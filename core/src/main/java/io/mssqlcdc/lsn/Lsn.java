package io.mssqlcdc.lsn;

import io.mssqlcdc.errors.CdcErrors;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;

/**
 * A SQL Server log sequence number: the 10-byte {@code binary(10)} that CDC uses for
 * {@code __$start_lsn}, {@code __$seqval} and every {@code sys.fn_cdc_*} function.
 *
 * <p>Immutable. Ordered as an unsigned 80-bit integer, which is SQL Server's byte order for
 * {@code binary(10)}; {@link #toString()} gives the canonical text {@code 0x} + 20 uppercase
 * hex digits, exactly what {@code CONVERT(varchar(22), lsn, 1)} returns, so the string order of
 * canonical texts equals LSN order. There is no null sentinel: "no LSN" is
 * {@code Optional.empty()} at the edges; {@link #ZERO} is the real all-zero LSN that
 * {@code sys.fn_cdc_get_min_lsn} returns for an unknown capture instance.
 */
public final class Lsn implements Comparable<Lsn>, Serializable {
  private static final long serialVersionUID = 1L;

  /** Number of bytes in a SQL Server LSN. */
  public static final int BYTES = 10;

  /** {@code 0x00000000000000000000}. */
  public static final Lsn ZERO = new Lsn(0, 0L);

  /** {@code 0xFFFFFFFFFFFFFFFFFFFF}, the largest LSN. */
  public static final Lsn MAX = new Lsn(0xFFFF, -1L);

  private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'};

  /** The upper 16 bits (bytes 0-1), 0..65535. */
  private final int high;
  /** The lower 64 bits (bytes 2-9), unsigned. */
  private final long low;

  private Lsn(int high, long low) {
    this.high = high;
    this.low = low;
  }

  /** The LSN whose upper 16 bits are {@code high} (0..65535) and lower 64 bits {@code low}. */
  public static Lsn of(int high, long low) {
    if (high < 0 || high > 0xFFFF) {
      throw CdcErrors.invalidLsn(Integer.toString(high), "the upper part must be in 0..65535");
    }
    return new Lsn(high, low);
  }

  /**
   * Parses an LSN: optional {@code 0x}/{@code 0X}, 1 to 20 hex digits in any case, surrounding
   * blanks ignored, left-padded with zeros to 20 digits.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException quoting the input when it is not an LSN
   */
  public static Lsn parse(String text) {
    if (text == null) {
      throw CdcErrors.invalidLsn("null", "expected 0x followed by up to 20 hex digits");
    }
    String s = text.strip();
    if (s.startsWith("0x") || s.startsWith("0X")) {
      s = s.substring(2);
    }
    if (s.isEmpty() || s.length() > 20) {
      throw CdcErrors.invalidLsn(text, "expected 0x followed by 1 to 20 hex digits");
    }
    int high = 0;
    long low = 0;
    // digits beyond the lowest 16 go to the high part
    int split = Math.max(0, s.length() - 16);
    for (int i = 0; i < s.length(); i++) {
      int d = Character.digit(s.charAt(i), 16);
      if (d < 0) {
        throw CdcErrors.invalidLsn(text, "'" + s.charAt(i) + "' is not a hex digit");
      }
      if (i < split) {
        high = (high << 4) | d;
      } else {
        low = (low << 4) | d;
      }
    }
    return new Lsn(high, low);
  }

  /**
   * The LSN of exactly 10 bytes, as SQL Server stores it (most significant byte first).
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when {@code bytes} is not 10 long
   */
  public static Lsn fromBytes(byte[] bytes) {
    if (bytes == null || bytes.length != BYTES) {
      throw CdcErrors.invalidLsn(
          bytes == null ? "null" : "<" + bytes.length + " bytes>",
          "an LSN is exactly " + BYTES + " bytes");
    }
    int high = ((bytes[0] & 0xFF) << 8) | (bytes[1] & 0xFF);
    long low = 0;
    for (int i = 2; i < BYTES; i++) {
      low = (low << 8) | (bytes[i] & 0xFF);
    }
    return new Lsn(high, low);
  }

  /** A new 10-byte array, most significant byte first. */
  public byte[] toBytes() {
    byte[] b = new byte[BYTES];
    b[0] = (byte) (high >>> 8);
    b[1] = (byte) high;
    for (int i = 0; i < 8; i++) {
      b[9 - i] = (byte) (low >>> (8 * i));
    }
    return b;
  }

  /** The upper 16 bits, 0..65535. */
  public int high() {
    return high;
  }

  /** The lower 64 bits, to be read as unsigned. */
  public long low() {
    return low;
  }

  /** This LSN plus one (the fake's {@code fn_cdc_increment_lsn}); {@link #MAX} stays MAX. */
  public Lsn increment() {
    if (this.equals(MAX)) {
      return MAX;
    }
    long nextLow = low + 1;
    int nextHigh = nextLow == 0 ? high + 1 : high;
    return new Lsn(nextHigh, nextLow);
  }

  /** This LSN minus one (the fake's {@code fn_cdc_decrement_lsn}); {@link #ZERO} stays ZERO. */
  public Lsn decrement() {
    if (this.equals(ZERO)) {
      return ZERO;
    }
    int prevHigh = low == 0 ? high - 1 : high;
    return new Lsn(prevHigh, low - 1);
  }

  /** This LSN plus {@code n} (n ≥ 0), saturating at {@link #MAX}. */
  public Lsn plus(long n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0, not " + n);
    }
    long nextLow = low + n;
    int carry = Long.compareUnsigned(nextLow, low) < 0 ? 1 : 0;
    int nextHigh = high + carry;
    if (nextHigh > 0xFFFF) {
      return MAX;
    }
    return new Lsn(nextHigh, nextLow);
  }

  public boolean isZero() {
    return high == 0 && low == 0;
  }

  public boolean isBefore(Lsn other) {
    return compareTo(other) < 0;
  }

  public boolean isAfter(Lsn other) {
    return compareTo(other) > 0;
  }

  public static Lsn max(Lsn a, Lsn b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  public static Lsn min(Lsn a, Lsn b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  @Override
  public int compareTo(Lsn o) {
    int c = Integer.compare(high, o.high);
    return c != 0 ? c : Long.compareUnsigned(low, o.low);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Lsn other && other.high == high && other.low == low;
  }

  @Override
  public int hashCode() {
    return 31 * high + Long.hashCode(low);
  }

  /** Canonical text: {@code 0x} + 20 uppercase hex digits. */
  @Override
  public String toString() {
    return new String(canonicalBytes(), StandardCharsets.US_ASCII);
  }

  /**
   * The canonical text's characters as ASCII (so also UTF-8) bytes, a new array of 22: for callers
   * that want the text's bytes without a {@code String} in between (the readers' {@code UTF8String}s).
   */
  public byte[] canonicalBytes() {
    byte[] b = new byte[22];
    b[0] = '0';
    b[1] = 'x';
    for (int i = 0; i < 4; i++) {
      b[2 + i] = HEX[(high >>> (4 * (3 - i))) & 0xF];
    }
    for (int i = 0; i < 16; i++) {
      b[6 + i] = HEX[(int) (low >>> (4 * (15 - i))) & 0xF];
    }
    return b;
  }

  /** Same as {@link #toString()}; reads better at call sites that build SQL parameters. */
  public String hex() {
    return toString();
  }

}

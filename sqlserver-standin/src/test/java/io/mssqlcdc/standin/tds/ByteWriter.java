package io.mssqlcdc.standin.tds;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable buffer of TDS data: integers little-endian unless the name says otherwise, text UTF-16LE. */
public final class ByteWriter {
  private byte[] buf;
  private int len;

  public ByteWriter() {
    this(256);
  }

  public ByteWriter(int capacity) {
    buf = new byte[Math.max(16, capacity)];
  }

  private void ensure(int more) {
    if (len + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }
  }

  public ByteWriter u8(int v) {
    ensure(1);
    buf[len++] = (byte) v;
    return this;
  }

  public ByteWriter u16(int v) {
    ensure(2);
    buf[len++] = (byte) v;
    buf[len++] = (byte) (v >>> 8);
    return this;
  }

  public ByteWriter u16be(int v) {
    ensure(2);
    buf[len++] = (byte) (v >>> 8);
    buf[len++] = (byte) v;
    return this;
  }

  public ByteWriter u32(int v) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  public ByteWriter u32be(int v) {
    ensure(4);
    for (int i = 3; i >= 0; i--) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  public ByteWriter u64(long v) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  /** The low {@code n} bytes of {@code v}, little-endian. */
  public ByteWriter uN(long v, int n) {
    ensure(n);
    for (int i = 0; i < n; i++) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  public ByteWriter bytes(byte[] b) {
    return bytes(b, 0, b.length);
  }

  public ByteWriter bytes(byte[] b, int off, int n) {
    ensure(n);
    System.arraycopy(b, off, buf, len, n);
    len += n;
    return this;
  }

  /** UTF-16LE code units, no length. */
  public ByteWriter utf16(String s) {
    return bytes(s.getBytes(StandardCharsets.UTF_16LE));
  }

  /** B_VARCHAR: a one-byte count of UTF-16 code units, then the text. */
  public ByteWriter bVarchar(String s) {
    String t = s == null ? "" : s;
    if (t.length() > 255) {
      throw new IllegalArgumentException("B_VARCHAR of " + t.length() + " characters");
    }
    return u8(t.length()).utf16(t);
  }

  /** US_VARCHAR: a two-byte count of UTF-16 code units, then the text. */
  public ByteWriter usVarchar(String s) {
    String t = s == null ? "" : s;
    return u16(t.length()).utf16(t);
  }

  /** Overwrites two bytes at {@code pos} with {@code v}, little-endian (back-patched lengths). */
  public void setU16(int pos, int v) {
    buf[pos] = (byte) v;
    buf[pos + 1] = (byte) (v >>> 8);
  }

  public int size() {
    return len;
  }

  public byte[] toArray() {
    return Arrays.copyOf(buf, len);
  }

  /** The internal array (valid up to {@link #size()}). */
  byte[] array() {
    return buf;
  }

  public void reset() {
    len = 0;
  }
}

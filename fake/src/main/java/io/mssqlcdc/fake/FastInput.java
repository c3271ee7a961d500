package io.mssqlcdc.fake;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A buffered big-endian reader of what {@link java.io.DataOutputStream} wrote, without the
 * synchronisation and per-call overhead of {@code DataInputStream(BufferedInputStream)}: the
 * change-row hot path reads through it. Not thread-safe.
 */
final class FastInput implements AutoCloseable {
  private final InputStream in;
  private final byte[] buf;
  private int pos;
  private int limit;

  FastInput(InputStream in, int bufferSize) {
    this.in = in;
    this.buf = new byte[bufferSize];
  }

  /** Whether at least one more byte is available. */
  boolean hasMore() {
    return pos < limit || fill(1);
  }

  byte readByte() {
    ensure(1);
    return buf[pos++];
  }

  int readUnsignedByte() {
    return readByte() & 0xFF;
  }

  short readShort() {
    ensure(2);
    short v = (short) (((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF));
    pos += 2;
    return v;
  }

  int readInt() {
    ensure(4);
    byte[] b = buf;
    int p = pos;
    int v = ((b[p] & 0xFF) << 24) | ((b[p + 1] & 0xFF) << 16) | ((b[p + 2] & 0xFF) << 8) | (b[p + 3] & 0xFF);
    pos = p + 4;
    return v;
  }

  long readLong() {
    ensure(8);
    byte[] b = buf;
    int p = pos;
    long v = ((long) b[p] << 56) | ((long) (b[p + 1] & 0xFF) << 48) | ((long) (b[p + 2] & 0xFF) << 40)
        | ((long) (b[p + 3] & 0xFF) << 32) | ((long) (b[p + 4] & 0xFF) << 24) | ((b[p + 5] & 0xFF) << 16)
        | ((b[p + 6] & 0xFF) << 8) | (b[p + 7] & 0xFF);
    pos = p + 8;
    return v;
  }

  byte[] readBytes(int n) {
    byte[] out = new byte[n];
    int done = 0;
    while (done < n) {
      if (pos >= limit && !fill(1)) {
        throw new UncheckedIOException(new EOFException("expected " + (n - done) + " more bytes"));
      }
      int c = Math.min(n - done, limit - pos);
      System.arraycopy(buf, pos, out, done, c);
      pos += c;
      done += c;
    }
    return out;
  }

  /** Skips {@code n} bytes without copying them. */
  void skip(int n) {
    int left = n;
    while (left > 0) {
      if (pos >= limit && !fill(1)) {
        throw new UncheckedIOException(new EOFException("expected " + left + " more bytes"));
      }
      int c = Math.min(left, limit - pos);
      pos += c;
      left -= c;
    }
  }

  /** A UTF-8 string of {@code n} bytes. */
  String readUtf8(int n) {
    if (n <= buf.length) {
      ensure(n);
      String s = new String(buf, pos, n, StandardCharsets.UTF_8);
      pos += n;
      return s;
    }
    return new String(readBytes(n), StandardCharsets.UTF_8);
  }

  private void ensure(int n) {
    if (limit - pos < n && !fill(n)) {
      throw new UncheckedIOException(new EOFException("expected " + n + " more bytes"));
    }
  }

  /** Compacts and reads until {@code n} bytes are buffered; false at end of stream. */
  private boolean fill(int n) {
    int rest = limit - pos;
    if (pos > 0) {
      System.arraycopy(buf, pos, buf, 0, rest);
      pos = 0;
      limit = rest;
    }
    try {
      while (limit < n) {
        int r = in.read(buf, limit, buf.length - limit);
        if (r < 0) {
          return false;
        }
        limit += r;
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

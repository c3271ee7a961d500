package io.mssqlcdc.standin;

import io.mssqlcdc.standin.tds.PacketIo;
import io.mssqlcdc.standin.tds.PacketIo.Message;
import io.mssqlcdc.standin.tds.Tds;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * TLS as TDS 7.x negotiates it after PRELOGIN (2.2.6.5, 3.3.5.2): the handshake's records travel
 * inside TDS messages (the client's in PRELOGIN packets, the server's in tabular-result
 * packets), then TLS records go straight over the socket, carrying TDS packets. With login-only
 * encryption (ENCRYPT_OFF on both sides) the caller drops back to the raw streams after LOGIN7.
 * TLS 1.2 only: a TLS 1.3 server sends a session ticket after the handshake, which would land in
 * the clear stream of a login-only session.
 */
final class TlsChannel {
  private final SSLEngine engine;
  private final InputStream rawIn;
  private final OutputStream rawOut;
  private ByteBuffer netIn;
  private final InputStream in;
  private final OutputStream out;

  private TlsChannel(SSLEngine engine, InputStream rawIn, OutputStream rawOut, ByteBuffer leftover) {
    this.engine = engine;
    this.rawIn = rawIn;
    this.rawOut = rawOut;
    this.netIn = leftover;
    this.in = new TlsInput();
    this.out = new TlsOutput();
  }

  /** Runs the server side of the handshake over TDS messages on {@code io}. */
  static TlsChannel handshake(SSLContext context, PacketIo io) throws IOException {
    SSLEngine engine = context.createSSLEngine();
    engine.setUseClientMode(false);
    engine.setEnabledProtocols(new String[] {"TLSv1.2"});
    engine.beginHandshake();
    int netSize = engine.getSession().getPacketBufferSize();
    ByteBuffer netIn = ByteBuffer.allocate(netSize);
    netIn.flip();
    ByteBuffer app = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
    java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();
    ByteBuffer netOut = ByteBuffer.allocate(netSize);
    while (true) {
      HandshakeStatus hs = engine.getHandshakeStatus();
      switch (hs) {
        case NEED_TASK -> {
          Runnable task;
          while ((task = engine.getDelegatedTask()) != null) {
            task.run();
          }
        }
        case NEED_WRAP -> {
          netOut.clear();
          SSLEngineResult r = engine.wrap(ByteBuffer.allocate(0), netOut);
          netOut.flip();
          pending.write(netOut.array(), 0, netOut.limit());
          if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
            throw new SSLException("TLS closed during the handshake");
          }
          HandshakeStatus next = r.getHandshakeStatus();
          if (next != HandshakeStatus.NEED_WRAP && next != HandshakeStatus.NEED_TASK && pending.size() > 0) {
            io.writeMessage(Tds.PKT_TABULAR_RESULT, pending.toByteArray());
            pending.reset();
          }
          if (next == HandshakeStatus.FINISHED) {
            return new TlsChannel(engine, io.in(), io.out(), netIn);
          }
        }
        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
          app.clear();
          SSLEngineResult r = netIn.hasRemaining() ? engine.unwrap(netIn, app) : null;
          if (r == null || r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
            Message m = io.readMessage();
            if (m == null) {
              throw new EOFException("the client closed the connection during the TLS handshake");
            }
            if (m.type() != Tds.PKT_PRELOGIN) {
              throw new SSLException("expected TLS handshake data in a PRELOGIN packet, got packet type " + m.type());
            }
            netIn = append(netIn, m.data());
          } else if (r.getHandshakeStatus() == HandshakeStatus.FINISHED) {
            if (pending.size() > 0) {
              io.writeMessage(Tds.PKT_TABULAR_RESULT, pending.toByteArray());
            }
            return new TlsChannel(engine, io.in(), io.out(), netIn);
          }
        }
        case FINISHED, NOT_HANDSHAKING -> {
          if (pending.size() > 0) {
            io.writeMessage(Tds.PKT_TABULAR_RESULT, pending.toByteArray());
          }
          return new TlsChannel(engine, io.in(), io.out(), netIn);
        }
        default -> throw new SSLException("unexpected handshake status " + hs);
      }
    }
  }

  /** {@code buf}'s unread bytes followed by {@code more}, ready to read. */
  private static ByteBuffer append(ByteBuffer buf, byte[] more) {
    ByteBuffer b = ByteBuffer.allocate(buf.remaining() + more.length + 16384);
    b.put(buf).put(more).flip();
    return b;
  }

  InputStream in() {
    return in;
  }

  OutputStream out() {
    return out;
  }

  InputStream rawIn() {
    return rawIn;
  }

  OutputStream rawOut() {
    return rawOut;
  }

  /** Application data out of TLS records read from the socket. */
  private final class TlsInput extends InputStream {
    private final ByteBuffer app = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
    private final byte[] chunk = new byte[16384];

    {
      app.flip();
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      while (!app.hasRemaining()) {
        app.clear();
        SSLEngineResult r = netIn.hasRemaining() ? engine.unwrap(netIn, app) : null;
        app.flip();
        if (r != null && r.getStatus() == SSLEngineResult.Status.CLOSED) {
          return -1;
        }
        if (r == null || r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
          int n = rawIn.read(chunk);
          if (n < 0) {
            return -1;
          }
          byte[] more = new byte[n];
          System.arraycopy(chunk, 0, more, 0, n);
          netIn = append(netIn, more);
        }
      }
      int n = Math.min(len, app.remaining());
      app.get(b, off, n);
      return n;
    }
  }

  /** Application data into TLS records written to the socket. */
  private final class TlsOutput extends OutputStream {
    private final ByteBuffer net = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      ByteBuffer src = ByteBuffer.wrap(b, off, len);
      while (src.hasRemaining()) {
        net.clear();
        SSLEngineResult r = engine.wrap(src, net);
        if (r.getStatus() != SSLEngineResult.Status.OK) {
          throw new SSLException("TLS wrap: " + r.getStatus());
        }
        rawOut.write(net.array(), 0, net.position());
      }
    }

    @Override
    public void flush() throws IOException {
      rawOut.flush();
    }
  }
}

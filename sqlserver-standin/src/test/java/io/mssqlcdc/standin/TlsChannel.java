package io.mssqlcdc.standin;

import io.mssqlcdc.standin.tds.PacketIo;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import javax.net.ssl.SSLContext;

/** TLS inside PRELOGIN packets (2.2.6.5 and 3.2.5.1), then TLS records straight on the socket. */
final class TlsChannel {
  private final InputStream rawIn;
  private final OutputStream rawOut;

  private TlsChannel(InputStream rawIn, OutputStream rawOut) {
    this.rawIn = rawIn;
    this.rawOut = rawOut;
  }

  static TlsChannel handshake(SSLContext context, PacketIo io) throws IOException {
    throw new UnsupportedOperationException("TLS is not implemented yet");
  }

  InputStream in() {
    throw new UnsupportedOperationException();
  }

  OutputStream out() {
    throw new UnsupportedOperationException();
  }

  InputStream rawIn() {
    return rawIn;
  }

  OutputStream rawOut() {
    return rawOut;
  }
}

package io.mssqlcdc.standin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A throw-away server certificate for the stand-in's TLS: a self-signed RSA key for
 * {@code localhost}/127.0.0.1 made by the JDK's keytool in a temporary directory (the JDK has no
 * public API to make one).
 */
final class StandInTls {
  static final String PASSWORD = "stand-in";

  private StandInTls() {}

  /** The PKCS12 key store holding the certificate (also usable as the client's trust store). */
  static Path keyStore(Path dir) {
    Path store = dir.resolve("standin.p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    ProcessBuilder pb = new ProcessBuilder(keytool, "-genkeypair", "-alias", "standin", "-keyalg", "RSA", "-keysize", "2048",
        "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
        "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD).redirectErrorStream(true);
    try {
      Process p = pb.start();
      String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (p.waitFor() != 0 || !Files.exists(store)) {
        throw new IllegalStateException("keytool failed: " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return store;
  }

  static SSLContext context(Path keyStore) {
    try (InputStream in = Files.newInputStream(keyStore)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, PASSWORD.toCharArray());
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, PASSWORD.toCharArray());
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), null, null);
      return ctx;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}

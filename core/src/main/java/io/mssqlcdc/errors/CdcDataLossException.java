package io.mssqlcdc.errors;

/**
 * Changes the stream still needed are gone: CDC cleanup purged them, or only a disabled capture instance held them. The message names the capture instance and the LSNs in canonical hex, and what to do.
 *
 * <p>Serializable (thrown on executors and shipped to the driver); the message never holds a
 * password: it passes through {@link Secrets#redact(String)}.
 */
public class CdcDataLossException extends IllegalStateException implements CdcError {
  private static final long serialVersionUID = 1L;

  private final CdcErrorCode code;

  public CdcDataLossException(CdcErrorCode code, String message) {
    super(code.tag() + ": " + Secrets.redact(message));
    this.code = code;
  }

  public CdcDataLossException(CdcErrorCode code, String message, Throwable cause) {
    super(code.tag() + ": " + Secrets.redact(message), cause);
    this.code = code;
  }

  @Override
  public CdcErrorCode code() {
    return code;
  }
}

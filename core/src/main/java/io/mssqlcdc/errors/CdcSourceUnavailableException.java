package io.mssqlcdc.errors;

/**
 * A transient failure talking to SQL Server (deadlock victim, lock timeout, killed session, connection reset) that outlived the driver's retries, or a precondition such as CDC capture not running.
 *
 * <p>Serializable (thrown on executors and shipped to the driver); the message never holds a
 * password: it passes through {@link Secrets#redact(String)}.
 */
public class CdcSourceUnavailableException extends RuntimeException implements CdcError {
  private static final long serialVersionUID = 1L;

  private final CdcErrorCode code;

  public CdcSourceUnavailableException(CdcErrorCode code, String message) {
    super(code.tag() + ": " + Secrets.redact(message));
    this.code = code;
  }

  public CdcSourceUnavailableException(CdcErrorCode code, String message, Throwable cause) {
    super(code.tag() + ": " + Secrets.redact(message), cause);
    this.code = code;
  }

  @Override
  public CdcErrorCode code() {
    return code;
  }
}

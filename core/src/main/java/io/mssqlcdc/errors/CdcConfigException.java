package io.mssqlcdc.errors;

/**
 * Invalid configuration: an option, an argument or a value the user passed (or the source's metadata) does not allow the read. The message names the option and value and says what to do.
 *
 * <p>Serializable (thrown on executors and shipped to the driver); the message never holds a
 * password: it passes through {@link Secrets#redact(String)}.
 */
public class CdcConfigException extends IllegalArgumentException implements CdcError {
  private static final long serialVersionUID = 1L;

  private final CdcErrorCode code;

  public CdcConfigException(CdcErrorCode code, String message) {
    super(code.tag() + ": " + Secrets.redact(message));
    this.code = code;
  }

  public CdcConfigException(CdcErrorCode code, String message, Throwable cause) {
    super(code.tag() + ": " + Secrets.redact(message), cause);
    this.code = code;
  }

  @Override
  public CdcErrorCode code() {
    return code;
  }
}

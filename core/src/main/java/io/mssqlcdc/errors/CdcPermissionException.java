package io.mssqlcdc.errors;

/**
 * The login lacks a right the read needs. The message names the exact GRANT (or the setup step) that fixes it.
 *
 * <p>Serializable (thrown on executors and shipped to the driver); the message never holds a
 * password: it passes through {@link Secrets#redact(String)}.
 */
public class CdcPermissionException extends SecurityException implements CdcError {
  private static final long serialVersionUID = 1L;

  private final CdcErrorCode code;

  public CdcPermissionException(CdcErrorCode code, String message) {
    super(code.tag() + ": " + Secrets.redact(message));
    this.code = code;
  }

  public CdcPermissionException(CdcErrorCode code, String message, Throwable cause) {
    super(code.tag() + ": " + Secrets.redact(message), cause);
    this.code = code;
  }

  @Override
  public CdcErrorCode code() {
    return code;
  }
}

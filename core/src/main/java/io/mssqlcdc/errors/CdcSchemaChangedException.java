package io.mssqlcdc.errors;

/**
 * The source table's schema changed in a way the running query cannot take (a type the declared schema does not hold, a new capture instance with new columns, or any DDL under schemaChangePolicy=fail). The message says how to restart past it.
 *
 * <p>Serializable (thrown on executors and shipped to the driver); the message never holds a
 * password: it passes through {@link Secrets#redact(String)}.
 */
public class CdcSchemaChangedException extends IllegalStateException implements CdcError {
  private static final long serialVersionUID = 1L;

  private final CdcErrorCode code;

  public CdcSchemaChangedException(CdcErrorCode code, String message) {
    super(code.tag() + ": " + Secrets.redact(message));
    this.code = code;
  }

  public CdcSchemaChangedException(CdcErrorCode code, String message, Throwable cause) {
    super(code.tag() + ": " + Secrets.redact(message), cause);
    this.code = code;
  }

  @Override
  public CdcErrorCode code() {
    return code;
  }
}

package io.mssqlcdc.standin.tds;

/** The client sent something the stand-in cannot parse as TDS 7.4. */
public final class TdsProtocolException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TdsProtocolException(String message) {
    super(message);
  }
}

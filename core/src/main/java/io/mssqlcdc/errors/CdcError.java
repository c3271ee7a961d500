package io.mssqlcdc.errors;

/** Implemented by every exception of this library: its stable {@link CdcErrorCode}. */
public interface CdcError {
  CdcErrorCode code();
}

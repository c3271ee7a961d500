package io.mssqlcdc.standin.tds;

import java.util.List;

/** Builders of the server's tokens (2.2.7), each into a fresh {@link ByteWriter}. */
public final class Tokens {
  private Tokens() {}

  /** A result column: its name and type. */
  public record Column(String name, SqlType type) {}

  /** LOGINACK: SQL_TSQL, TDS 7.4 (big-endian), program name and version 16.0.1000.0. */
  public static ByteWriter loginAck(String programName) {
    ByteWriter body = new ByteWriter().u8(1).u32be(Tds.TDS_7_4).bVarchar(programName).u8(16).u8(0).u8(0x03).u8(0xE8);
    return new ByteWriter().u8(Tds.TOKEN_LOGINACK).u16(body.size()).bytes(body.toArray());
  }

  /** ENVCHANGE with B_VARCHAR new and old values (database, language, packet size). */
  public static ByteWriter envChange(int type, String newValue, String oldValue) {
    ByteWriter body = new ByteWriter().u8(type).bVarchar(newValue).bVarchar(oldValue);
    return new ByteWriter().u8(Tds.TOKEN_ENVCHANGE).u16(body.size()).bytes(body.toArray());
  }

  /** ENVCHANGE of the SQL collation: B_VARBYTE new value, empty old value. */
  public static ByteWriter envCollation(byte[] collation) {
    ByteWriter body = new ByteWriter().u8(Tds.ENV_SQL_COLLATION).u8(collation.length).bytes(collation).u8(0);
    return new ByteWriter().u8(Tds.TOKEN_ENVCHANGE).u16(body.size()).bytes(body.toArray());
  }

  /** FEATUREEXTACK acknowledging no feature (only the terminator). */
  public static ByteWriter featureExtAckNone() {
    return new ByteWriter().u8(Tds.TOKEN_FEATUREEXTACK).u8(0xFF);
  }

  /** ERROR (class 11 and above) or INFO (below 11), as SQL Server sends them. */
  public static ByteWriter message(int number, int state, int severity, String text, String server, String proc, int line) {
    ByteWriter body = new ByteWriter().u32(number).u8(state).u8(severity).usVarchar(text).bVarchar(server)
        .bVarchar(proc == null ? "" : proc).u32(line);
    return new ByteWriter().u8(severity > 10 ? Tds.TOKEN_ERROR : Tds.TOKEN_INFO).u16(body.size()).bytes(body.toArray());
  }

  /** DONE, DONEPROC or DONEINPROC. */
  public static ByteWriter done(int token, int status, int curCmd, long rowCount) {
    return new ByteWriter(13).u8(token).u16(status).u16(curCmd).u64(rowCount);
  }

  public static ByteWriter returnStatus(int value) {
    return new ByteWriter(5).u8(Tds.TOKEN_RETURNSTATUS).u32(value);
  }

  /** RETURNVALUE of an output parameter. */
  public static ByteWriter returnValue(int ordinal, String name, SqlType type, Object value) {
    ByteWriter w = new ByteWriter().u8(Tds.TOKEN_RETURNVALUE).u16(ordinal).bVarchar(name).u8(0x01);
    type.writeColumnHead(w);
    type.writeValue(w, value);
    return w;
  }

  /** COLMETADATA: column count, then per column UserType, Flags, TYPE_INFO (with TableName for text types), ColName. */
  public static ByteWriter colMetadata(List<Column> columns) {
    ByteWriter w = new ByteWriter().u8(Tds.TOKEN_COLMETADATA).u16(columns.size());
    for (Column c : columns) {
      c.type().writeColumnHead(w);
      w.bVarchar(c.name());
    }
    return w;
  }

  /** ROW: each value in column order. */
  public static ByteWriter row(List<Column> columns, Object[] values) {
    ByteWriter w = new ByteWriter().u8(Tds.TOKEN_ROW);
    for (int i = 0; i < columns.size(); i++) {
      columns.get(i).type().writeValue(w, values[i]);
    }
    return w;
  }
}

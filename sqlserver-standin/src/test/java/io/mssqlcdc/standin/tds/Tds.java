package io.mssqlcdc.standin.tds;

/** Constants of [MS-TDS] 7.4: packet types, token types, DONE status bits, data type codes. */
public final class Tds {
  private Tds() {}

  // ---- packet types (2.2.3.1.1) ----
  public static final int PKT_SQL_BATCH = 0x01;
  public static final int PKT_RPC = 0x03;
  public static final int PKT_TABULAR_RESULT = 0x04;
  public static final int PKT_ATTENTION = 0x06;
  public static final int PKT_BULK_LOAD = 0x07;
  public static final int PKT_TRANSACTION_MANAGER = 0x0E;
  public static final int PKT_LOGIN7 = 0x10;
  public static final int PKT_SSPI = 0x11;
  public static final int PKT_PRELOGIN = 0x12;

  /** Packet status: end of message. */
  public static final int STATUS_EOM = 0x01;
  public static final int HEADER_LENGTH = 8;

  // ---- tokens (2.2.7) ----
  public static final int TOKEN_RETURNSTATUS = 0x79;
  public static final int TOKEN_COLMETADATA = 0x81;
  public static final int TOKEN_ORDER = 0xA9;
  public static final int TOKEN_ERROR = 0xAA;
  public static final int TOKEN_INFO = 0xAB;
  public static final int TOKEN_RETURNVALUE = 0xAC;
  public static final int TOKEN_LOGINACK = 0xAD;
  public static final int TOKEN_FEATUREEXTACK = 0xAE;
  public static final int TOKEN_ROW = 0xD1;
  public static final int TOKEN_NBCROW = 0xD2;
  public static final int TOKEN_ENVCHANGE = 0xE3;
  public static final int TOKEN_DONE = 0xFD;
  public static final int TOKEN_DONEPROC = 0xFE;
  public static final int TOKEN_DONEINPROC = 0xFF;

  // ---- DONE status (2.2.7.6) ----
  public static final int DONE_FINAL = 0x00;
  public static final int DONE_MORE = 0x01;
  public static final int DONE_ERROR = 0x02;
  public static final int DONE_COUNT = 0x10;
  public static final int DONE_ATTN = 0x20;
  public static final int DONE_SRVERROR = 0x100;

  /** CurCmd of a SELECT (the value SQL Server sends; the TDS layer does not interpret it). */
  public static final int CMD_SELECT = 0xC1;
  /** CurCmd of an EXECUTE. */
  public static final int CMD_EXECUTE = 0xE0;
  /** CurCmd of a SET. */
  public static final int CMD_SET = 0xB9;

  // ---- ENVCHANGE types (2.2.7.9) ----
  public static final int ENV_DATABASE = 1;
  public static final int ENV_LANGUAGE = 2;
  public static final int ENV_PACKET_SIZE = 4;
  public static final int ENV_SQL_COLLATION = 7;

  // ---- data types (2.2.5.4) ----
  public static final int NULLTYPE = 0x1F;
  public static final int INT1 = 0x30;
  public static final int BIT = 0x32;
  public static final int INT2 = 0x34;
  public static final int INT4 = 0x38;
  public static final int DATETIM4 = 0x3A;
  public static final int FLT4 = 0x3B;
  public static final int MONEY = 0x3C;
  public static final int DATETIME = 0x3D;
  public static final int FLT8 = 0x3E;
  public static final int MONEY4 = 0x7A;
  public static final int INT8 = 0x7F;
  public static final int GUID = 0x24;
  public static final int INTN = 0x26;
  public static final int DECIMAL = 0x37;
  public static final int NUMERIC = 0x3F;
  public static final int BITN = 0x68;
  public static final int DECIMALN = 0x6A;
  public static final int NUMERICN = 0x6C;
  public static final int FLTN = 0x6D;
  public static final int MONEYN = 0x6E;
  public static final int DATETIMN = 0x6F;
  public static final int DATEN = 0x28;
  public static final int TIMEN = 0x29;
  public static final int DATETIME2N = 0x2A;
  public static final int DATETIMEOFFSETN = 0x2B;
  public static final int BIGVARBINARY = 0xA5;
  public static final int BIGVARCHAR = 0xA7;
  public static final int BIGBINARY = 0xAD;
  public static final int BIGCHAR = 0xAF;
  public static final int NVARCHAR = 0xE7;
  public static final int NCHAR = 0xEF;
  public static final int XML = 0xF1;
  public static final int UDT = 0xF0;
  public static final int TEXT = 0x23;
  public static final int IMAGE = 0x22;
  public static final int NTEXT = 0x63;
  public static final int SSVARIANT = 0x62;

  /** Length of a (max) type in TYPE_INFO: the value is sent as PLP. */
  public static final int MAX_MARKER = 0xFFFF;
  public static final long PLP_NULL = 0xFFFFFFFFFFFFFFFFL;
  public static final long PLP_UNKNOWN_LENGTH = 0xFFFFFFFFFFFFFFFEL;
  /** USHORTCHARBINLEN null. */
  public static final int CHARBIN_NULL = 0xFFFF;

  /** SQL_Latin1_General_CP1_CI_AS: LCID 0x0409, ignore case/kana/width flags, sort id 52 (code page 1252). */
  public static final byte[] DEFAULT_COLLATION = {0x09, 0x04, (byte) 0xD0, 0x00, 0x34};

  /** The TDS version this server speaks, as LOGINACK sends it (big-endian on the wire). */
  public static final int TDS_7_4 = 0x74000004;
}

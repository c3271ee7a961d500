package io.mssqlcdc.connector;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;

/**
 * The metadata columns the stream and the snapshot put before the captured columns, and the
 * names the library reserves (docs/SCHEMA.md).
 */
public final class CdcColumns {
  public static final String CAPTURE_INSTANCE = "_capture_instance";
  public static final String START_LSN = "_start_lsn";
  public static final String SEQVAL = "_seqval";
  public static final String OPERATION = "_operation";
  public static final String COMMAND_ID = "_command_id";
  public static final String COMMIT_TS = "_commit_ts";
  /** Added by the snapshot reader with {@code snapshotChunks}. */
  public static final String CHUNK = "_chunk";
  /** Added by the Delta sink. */
  public static final String BATCH_ID = "_batch_id";
  /** Added by the Delta sink. */
  public static final String SNAPSHOT = "_snapshot";

  /** Names a source column may not take, in any case. */
  public static final List<String> RESERVED =
      List.of(CAPTURE_INSTANCE, START_LSN, SEQVAL, OPERATION, COMMAND_ID, COMMIT_TS, BATCH_ID, SNAPSHOT, CHUNK);

  private static final Set<String> RESERVED_LOWER = Set.copyOf(RESERVED);

  private CdcColumns() {}

  public static boolean isReserved(String name) {
    return RESERVED_LOWER.contains(name.toLowerCase(Locale.ROOT));
  }

  /** The metadata fields, in order; without {@code _command_id} when {@code includeCommandId} is false. */
  public static List<StructField> metadataFields(boolean includeCommandId) {
    StructField ci = field(CAPTURE_INSTANCE, DataTypes.StringType, "capture instance the row was read from");
    StructField lsn = field(START_LSN, DataTypes.StringType, "commit LSN (__$start_lsn), 0x + 20 hex digits");
    StructField seq = field(SEQVAL, DataTypes.StringType, "__$seqval: order inside the transaction; NULL on snapshot rows");
    StructField op = field(OPERATION, DataTypes.IntegerType,
        "0 snapshot, 1 delete, 2 insert, 3 update before image, 4 update after image");
    StructField cmd = field(COMMAND_ID, DataTypes.IntegerType, "__$command_id, per capture instance; NULL on snapshot rows");
    StructField ts = field(COMMIT_TS, DataTypes.TimestampNTZType, "commit time of _start_lsn, UTC");
    return includeCommandId ? List.of(ci, lsn, seq, op, cmd, ts) : List.of(ci, lsn, seq, op, ts);
  }

  private static StructField field(String name, DataType type, String comment) {
    return new StructField(name, type, true, Metadata.empty()).withComment(comment);
  }
}

package io.mssqlcdc.silver;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.errors.SilverErrors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Bronze's columns as silver sees them: the metadata it orders and filters by, the captured
 * columns it copies (everything else; a newer capture instance's columns are among them), and the
 * keys resolved to bronze's spelling (matched ignoring case, as SQL Server names columns).
 *
 * @param captured the captured columns, in bronze's order
 * @param keys the key columns, spelled as bronze spells them (those found)
 * @param missingKeys the keys that are no captured column ({@link #requireKeys} fails on them)
 * @param hasCommandId whether bronze has {@code _command_id} (not with {@code includeCommandId=false})
 * @param hasSnapshot whether bronze has {@code _snapshot} (bronze migration 2)
 * @param hasChunk whether bronze has {@code _chunk} (bronze migration 2)
 */
record BronzeColumns(List<StructField> captured, List<String> keys, List<String> missingKeys, boolean hasCommandId,
    boolean hasSnapshot, boolean hasChunk) {

  private static final List<String> REQUIRED = List.of(CdcColumns.CAPTURE_INSTANCE, CdcColumns.START_LSN,
      CdcColumns.SEQVAL, CdcColumns.OPERATION, CdcColumns.COMMIT_TS);

  /**
   * Reads {@code schema}.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException when bronze lacks the sink's columns
   */
  static BronzeColumns of(StructType schema, String bronze, List<String> keys) {
    List<String> names = Arrays.asList(schema.fieldNames());
    List<String> missing = REQUIRED.stream().filter(r -> !names.contains(r)).toList();
    if (!missing.isEmpty()) {
      throw SilverErrors.notABronzeTable(bronze, missing);
    }
    List<StructField> captured = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (!SilverTable.isBronzeMetadata(f.name())) {
        captured.add(f);
      }
    }
    List<String> capturedNames = captured.stream().map(StructField::name).toList();
    List<String> resolved = new ArrayList<>();
    List<String> notCaptured = new ArrayList<>();
    for (String k : keys) {
      String exact = capturedNames.contains(k) ? k : null;
      List<String> folded = capturedNames.stream().filter(n -> n.equalsIgnoreCase(k)).toList();
      if (exact != null) {
        resolved.add(exact);
      } else if (folded.size() == 1) {
        resolved.add(folded.get(0));
      } else {
        notCaptured.add(k);
      }
    }
    return new BronzeColumns(List.copyOf(captured), List.copyOf(resolved), List.copyOf(notCaptured),
        names.contains(CdcColumns.COMMAND_ID), names.contains(CdcColumns.SNAPSHOT), names.contains(CdcColumns.CHUNK));
  }

  /**
   * Fails when a key is not a captured column (checked after the capture instances: rows of another
   * table's instance are the likelier mistake, and its message names it).
   */
  void requireKeys(String bronze) {
    if (!missingKeys.isEmpty()) {
      throw SilverErrors.keysNotCaptured(missingKeys, bronze, capturedNames());
    }
  }

  /** The captured columns' names. */
  List<String> capturedNames() {
    return captured.stream().map(StructField::name).toList();
  }

  /** The columns silver writes: the captured ones, {@code _start_lsn}, {@code _commit_ts}. */
  List<String> written() {
    List<String> out = new ArrayList<>(capturedNames());
    out.add(CdcColumns.START_LSN);
    out.add(CdcColumns.COMMIT_TS);
    return out;
  }

  /** The type of captured column {@code name}. */
  DataType type(String name) {
    return captured.stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow().dataType();
  }

  /** Lower-case names, for comparisons ignoring case. */
  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}

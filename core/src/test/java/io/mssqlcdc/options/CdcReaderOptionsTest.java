package io.mssqlcdc.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions.Reader;
import io.mssqlcdc.options.CdcReaderOptions.SchemaChangePolicy;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CdcReaderOptionsTest {
  private static final String URL = "jdbc:sqlserver://h:1433;databaseName=db;user=u;password=hunter2";

  private static Map<String, String> base() {
    Map<String, String> m = new HashMap<>();
    m.put("captureinstance", "dbo_orders");
    m.put("connectionstring", URL);
    return m;
  }

  private static CdcReaderOptions parse(Reader reader, String... kv) {
    Map<String, String> m = base();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i].toLowerCase(java.util.Locale.ROOT), kv[i + 1]);
    }
    return CdcReaderOptions.parse(m, reader);
  }

  private static CdcReaderOptions stream(String... kv) {
    return parse(Reader.STREAM, kv);
  }

  @Test
  void defaults() {
    CdcReaderOptions o = stream();
    assertThat(o.captureInstance()).isEqualTo("dbo_orders");
    assertThat(o.backend()).isEqualTo("jdbc");
    assertThat(o.connectTimeoutSeconds()).isEqualTo(30);
    assertThat(o.lockTimeoutMs()).isEqualTo(-1);
    assertThat(o.sourceTimeZone()).isEqualTo("auto");
    assertThat(o.columns()).isEmpty();
    assertThat(o.includeCommandId()).isTrue();
    assertThat(o.startingLsn()).isEqualTo(StartingPosition.EARLIEST);
    assertThat(o.maxCommitsPerBatch()).isEmpty();
    assertThat(o.numPartitions()).isEmpty();
    assertThat(o.fetchSize()).isEqualTo(10_000);
    assertThat(o.failOnDataLoss()).isTrue();
    assertThat(o.schemaChangePolicy()).isEqualTo(SchemaChangePolicy.CLASSIFY);
    assertThat(o.isolationLevel()).isEqualTo(Isolation.READ_COMMITTED);
  }

  @Test
  void namesAreCaseInsensitive() {
    CdcReaderOptions o = CdcReaderOptions.parse(
        Map.of("CAPTUREINSTANCE", "dbo_x", "ConnectionString", URL, "MaxCommitsPerBatch", "4"), Reader.STREAM);
    assertThat(o.captureInstance()).isEqualTo("dbo_x");
    assertThat(o.maxCommitsPerBatch()).hasValue(4);
  }

  @Test
  void requiredOptions() {
    assertThatThrownBy(() -> CdcReaderOptions.parse(Map.of("connectionString", URL), Reader.STREAM))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Option 'captureInstance' is required (e.g. 'dbo_orders')");
    assertThatThrownBy(() -> CdcReaderOptions.parse(Map.of("captureInstance", "dbo_x"), Reader.STREAM))
        .hasMessageContaining("Option 'connectionString' is required");
    assertThatThrownBy(() -> CdcReaderOptions.parse(Map.of("captureInstance", "dbo_x", "backend", "fake"), Reader.STREAM))
        .hasMessageContaining("Option 'fakePath' is required");
    assertThat(CdcReaderOptions.parse(Map.of("captureInstance", "dbo_x", "backend", "FAKE", "fakePath", "/tmp/f"),
        Reader.STREAM).backend()).isEqualTo("fake");
  }

  @Test
  void unknownOptionsAreRejectedWithASuggestion() {
    Map<String, String> m = base();
    m.put("maxCommitPerBatch", "4");
    assertThatThrownBy(() -> CdcReaderOptions.parse(m, Reader.STREAM))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Unknown option 'maxCommitPerBatch': did you mean 'maxCommitsPerBatch'?")
        .hasMessageContaining("Known options: captureInstance, connectionString");
    assertThatThrownBy(() -> stream("startinglsn_x", "earliest"))
        .hasMessageContaining("did you mean 'startingLsn'?");
    assertThatThrownBy(() -> stream("completelyunrelated", "1"))
        .hasMessageContaining("Unknown option 'completelyunrelated'.")
        .hasMessageNotContaining("did you mean");
  }

  @Test
  void metricsPathIsExplainedNotJustRejected() {
    assertThatThrownBy(() -> stream("metricsPath", "/tmp/m"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Option 'metricsPath' is not needed here");
  }

  @Test
  void snapshotOnlyOptionsAreRejectedByTheStreamButStreamOptionsAcceptedBySnapshots() {
    assertThatThrownBy(() -> stream("snapshotLsn", "0x01"))
        .hasMessageContaining("Option 'snapshotLsn' must be set only on format(\"mssql_cdc_snapshot\")");
    CdcReaderOptions snap = parse(Reader.SNAPSHOT, "maxCommitsPerBatch", "3", "snapshotLsn", "2a");
    assertThat(snap.snapshotLsn()).hasValue(Lsn.parse("0x2A"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "includeCommandId|maybe|Option 'includeCommandId' must be true or false (or 1/0, yes/no, y/n), not 'maybe'.",
      "failOnDataLoss|2|Option 'failOnDataLoss' must be true or false (or 1/0, yes/no, y/n), not '2'.",
      "maxCommitsPerBatch|0|Option 'maxCommitsPerBatch' must be a positive integer, not '0'. omit it to read up to max_lsn",
      "maxCommitsPerBatch|ten|Option 'maxCommitsPerBatch' must be a positive integer, not 'ten'.",
      "numPartitions|0|Option 'numPartitions' must be 'auto' or a positive integer, not '0'.",
      "numPartitions|many|Option 'numPartitions' must be 'auto' or a positive integer, not 'many'.",
      "fetchSize|-1|Option 'fetchSize' must be a positive integer, not '-1'.",
      "connectTimeout|-5|Option 'connectTimeout' must be a non-negative integer (seconds), not '-5'.",
      "lockTimeoutMs|x|Option 'lockTimeoutMs' must be a non-negative integer (milliseconds), not 'x'.",
      "startingLsn|soon|Option 'startingLsn' must be 'earliest', 'latest' or an LSN such as 0x0000002A000001F00003, not 'soon'.",
      "schemaChangePolicy|ignore|Option 'schemaChangePolicy' must be one of 'classify', 'fail', not 'ignore'.",
      "sourceTimeZone|Europe/Berlin;DROP|Option 'sourceTimeZone' must be a time zone name, UTC±HH:MM or 'auto', not 'Europe/Berlin;DROP'.",
      "backend|odbc|Option 'backend' must be one of 'jdbc', 'fake', not 'odbc'.",
      "backend|mssql-python|is a driver of the Python reference",
      "columns| |Option 'columns' must be a Spark DDL column list",
      "columns| |omit it to infer the columns",
      "fakePath| |Option 'fakePath' must be a directory path",
      "connectionString| |Option 'connectionString' must be a JDBC URL or an ODBC-style connection string",
      "captureInstance|a]b|Invalid capture instance 'a]b': ']' is not allowed",
      "captureInstance||Invalid capture instance '': it must not be empty",
  })
  void everyOptionsValidationNamesOptionAndValue(String name, String value, String message) {
    assertThatThrownBy(() -> stream(name, value == null ? "" : value))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining(message);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "isolationLevel|nolock|Option 'isolationLevel' must be 'readCommitted' or 'snapshot', not 'nolock'. a snapshot never reads uncommitted rows (NOLOCK)",
      "snapshotLsn|0xZZ|Option 'snapshotLsn' must be an LSN such as 0x0000002A000001F00003, not '0xZZ'.",
  })
  void snapshotOptionsValidation(String name, String value, String message) {
    assertThatThrownBy(() -> parse(Reader.SNAPSHOT, name, value))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining(message);
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "1", "yes", "Y", " TRUE "})
  void trueSpellings(String v) {
    assertThat(stream("includeCommandId", v).includeCommandId()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"false", "0", "no", "N", " False "})
  void falseSpellings(String v) {
    assertThat(stream("includeCommandId", v).includeCommandId()).isFalse();
  }

  @Test
  void typedValues() {
    CdcReaderOptions o = stream("startingLsn", "2a000001f00003", "numPartitions", "8", "schemaChangePolicy", "FAIL",
        "arrowBatchSize", "500", "sourceTimeZone", "E. South America Standard Time", "lockTimeoutMs", "0");
    assertThat(o.startingLsn()).isEqualTo(StartingPosition.after(Lsn.parse("0x0000002A000001F00003")));
    assertThat(o.numPartitions()).isEqualTo(OptionalInt.of(8));
    assertThat(o.schemaChangePolicy()).isEqualTo(SchemaChangePolicy.FAIL);
    assertThat(o.fetchSize()).isEqualTo(500);
    assertThat(o.sourceTimeZone()).isEqualTo("E. South America Standard Time");
    assertThat(o.lockTimeoutMs()).isZero();
    assertThat(stream("sourceTimeZone", "UTC-03:00").sourceTimeZone()).isEqualTo("UTC-03:00");
    assertThat(stream("startingLsn", "LATEST").startingLsn()).isEqualTo(StartingPosition.LATEST);
    assertThat(parse(Reader.SNAPSHOT, "isolationLevel", "SNAPSHOT").isolationLevel()).isEqualTo(Isolation.SNAPSHOT);
  }

  @Test
  void anAliasAndItsNameTogetherAreRejected() {
    assertThatThrownBy(() -> stream("fetchSize", "5", "arrowBatchSize", "6"))
        .hasMessageContaining("Option 'fetchSize' must be given once");
  }

  @Test
  void toStringMasksThePassword() {
    assertThat(stream().toString()).contains("password=***").doesNotContain("hunter2");
    assertThat(parse(Reader.STREAM, "connectionString", "Server=h;UID=u;PWD=hunter2").toString())
        .contains("PWD=***").doesNotContain("hunter2");
  }

  @Test
  void withReplacesOneValidatedOption() {
    CdcReaderOptions o = stream().with(CdcReaderOptions.SOURCE_TIME_ZONE, "UTC");
    assertThat(o.sourceTimeZone()).isEqualTo("UTC");
    assertThatThrownBy(() -> stream().with(CdcReaderOptions.SOURCE_TIME_ZONE, "bad;zone"))
        .isInstanceOf(CdcConfigException.class);
  }

  @Test
  void optionsAreSerializable() throws Exception {
    CdcReaderOptions o = stream("maxCommitsPerBatch", "3");
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    try (java.io.ObjectInputStream in =
        new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      CdcReaderOptions back = (CdcReaderOptions) in.readObject();
      assertThat(back.maxCommitsPerBatch()).hasValue(3);
      assertThat(back.asMap()).isEqualTo(o.asMap());
    }
  }
}

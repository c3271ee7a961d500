package io.mssqlcdc.finalization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.CdcConfigException;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Reading a source's end offset from a progress's JSON, as Spark and PySpark write it. */
@Tag("spark")
class EndOffsetFromProgressTest {
  private static final String OFFSET =
      "{\"lsn\":\"0x0000002A000001F00003\",\"commit_ts\":\"2026-03-01T10:42:17.123\",\"v\":1,\"source\":\"dbo.orders\"}";

  private static String progress(String sources) {
    return "{\"id\":\"a\",\"runId\":\"b\",\"batchId\":3,\"sources\":" + sources + "}";
  }

  @Test
  void theEndOffsetEmbeddedAsJsonAsSparkWritesIt() {
    CdcOffset o = Finalization.endOffsetFromProgress(progress("[{\"description\":\"mssql_cdc\",\"endOffset\":" + OFFSET
        + "}]")).orElseThrow();
    assertThat(o.lsn().toString()).isEqualTo("0x0000002A000001F00003");
    assertThat(o.commitTs()).contains(Instant.parse("2026-03-01T10:42:17.123Z"));
    assertThat(o.source()).contains("dbo.orders");
  }

  @Test
  void theEndOffsetAsAStringHoldingJsonAndTheReferencesShape() {
    String ref = "{\"lsn\": \"0x0000002A000001F00003\", \"commit_ts\": \"2026-03-01T10:42:17.123\"}";
    String escaped = ref.replace("\"", "\\\"");
    CdcOffset o = Finalization.endOffsetFromProgress(progress("[{\"endOffset\":\"" + escaped + "\"}]")).orElseThrow();
    assertThat(o.commitTsText()).isEqualTo("2026-03-01T10:42:17.123");
  }

  @Test
  void theSourceIndexPicksTheSource() {
    String two = progress("[{\"description\":\"rate\",\"endOffset\":{\"0\":17}},{\"endOffset\":" + OFFSET + "}]");
    assertThat(Finalization.endOffsetFromProgress(two, 1)).isPresent();
    assertThat(Finalization.endOffsetFromProgress(two, 2)).isEmpty();
    assertThatThrownBy(() -> Finalization.endOffsetFromProgress(two, 0)).isInstanceOf(CdcConfigException.class)
        .hasMessageStartingWith("MSSQL_CDC-763: Source 0 of the query progress (rate) has the end offset {\"0\":17},"
            + " which is not an mssql_cdc offset: it has no 'lsn'. Finalization follows a format(\"mssql_cdc\") stream:"
            + " pass the sourceIndex of that source in the query (0 for the first).");
    assertThatThrownBy(() -> Finalization.endOffsetFromProgress(two, -1))
        .hasMessage("MSSQL_CDC-765: sourceIndex must be the position of the mssql_cdc source in the query, 0 or more,"
            + " not '-1'.");
  }

  @Test
  void nothingToReadIsEmpty() {
    assertThat(Finalization.endOffsetFromProgress((String) null)).isEmpty();
    assertThat(Finalization.endOffsetFromProgress((org.apache.spark.sql.streaming.StreamingQueryProgress) null)).isEmpty();
    assertThat(Finalization.endOffsetFromProgress(progress("[]"))).isEmpty();
    assertThat(Finalization.endOffsetFromProgress("{\"id\":\"a\"}")).isEmpty();
    assertThat(Finalization.endOffsetFromProgress(progress("[{\"endOffset\":null}]"))).isEmpty();
  }

  @Test
  void textThatIsNoProgressIsRefused() {
    assertThatThrownBy(() -> Finalization.endOffsetFromProgress("not json")).isInstanceOf(CdcConfigException.class)
        .hasMessageStartingWith("MSSQL_CDC-764: Cannot read the query progress 'not json': it is not JSON. Pass a"
            + " StreamingQueryProgress, or its JSON");
    assertThatThrownBy(() -> Finalization.endOffsetFromProgress("[1]")).hasMessageContaining("it is not a JSON object");
    assertThatThrownBy(() -> Finalization.endOffsetFromProgress("{\"sources\":3}")).hasMessageContaining("'sources' is not a list");
    assertThatThrownBy(() -> Finalization.endOffsetFromProgress(progress("[{\"endOffset\":{\"lsn\":\"0xZZ\"}}]")))
        .hasMessageContaining("its 'lsn' or 'commit_ts' cannot be read");
  }
}

package io.mssqlcdc.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link CdcErrors#isDataLoss} and {@link CdcErrors#isSchemaChanged} through wrapping and text-only boundaries. */
class CdcErrorPredicatesTest {
  private static final CdcDataLossException LOSS = CdcErrors.dataLoss("dbo_orders", "0x01", "0x02", List.of());
  private static final CdcSchemaChangedException CHANGED = CdcErrors.schemaChanged("dbo_orders: type changed");

  @Test
  void theExceptionsThemselves() {
    assertThat(CdcErrors.isDataLoss(LOSS)).isTrue();
    assertThat(CdcErrors.isSchemaChanged(LOSS)).isFalse();
    assertThat(CdcErrors.isSchemaChanged(CHANGED)).isTrue();
    assertThat(CdcErrors.isDataLoss(CHANGED)).isFalse();
    assertThat(CdcErrors.isDataLoss(null)).isFalse();
    assertThat(CdcErrors.codeOf(LOSS)).contains(CdcErrorCode.DATA_LOSS);
  }

  @Test
  void causesAndSuppressedExceptionsAreSeenThrough() {
    RuntimeException task = new RuntimeException("Job aborted due to stage failure", LOSS);
    RuntimeException query = new IllegalStateException("Query terminated with exception", task);
    assertThat(CdcErrors.isDataLoss(query)).isTrue();
    RuntimeException closing = new RuntimeException("close failed");
    closing.addSuppressed(CHANGED);
    assertThat(CdcErrors.isSchemaChanged(new RuntimeException("outer", closing))).isTrue();
    assertThat(CdcErrors.codeOf(query)).contains(CdcErrorCode.DATA_LOSS);
  }

  /** Py4J and Spark Connect hand the client only the text of the JVM's exception. */
  @Test
  void messagesThatCarryOurCodeAcrossATextOnlyBoundary() {
    RuntimeException py4j = new RuntimeException("An error occurred while calling o57.awaitTermination.\n"
        + ": org.apache.spark.sql.streaming.StreamingQueryException: [STREAM_FAILED] Query [id = 1] terminated"
        + " with exception: " + LOSS);
    assertThat(CdcErrors.isDataLoss(py4j)).isTrue();
    assertThat(CdcErrors.isSchemaChanged(py4j)).isFalse();
    RuntimeException connect = new RuntimeException("(org.apache.spark.SparkException) Job aborted: "
        + CHANGED.getClass().getName() + ": " + CHANGED.getMessage());
    assertThat(CdcErrors.isSchemaChanged(connect)).isTrue();
    assertThat(CdcErrors.codeOf(connect)).contains(CdcErrorCode.SCHEMA_CHANGED);
  }

  @Test
  void otherErrorsAndLookAlikeTextAreNot() {
    assertThat(CdcErrors.isDataLoss(new RuntimeException("MSSQL_CDC-2000 is no code of ours"))).isFalse();
    assertThat(CdcErrors.isDataLoss(CdcErrors.invalidOption("x", "y", "z", null))).isFalse();
    assertThat(CdcErrors.isDataLoss(new RuntimeException("MSSQL_CDC-500: SQL Server did not answer"))).isFalse();
    assertThat(CdcErrors.codeOf(new RuntimeException("plain"))).isEmpty();
  }

  @Test
  void aCyclicCauseChainEnds() {
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);
    assertThat(CdcErrors.isDataLoss(a)).isFalse();
  }
}

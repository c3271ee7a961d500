package io.mssqlcdc.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcStateException;
import io.mssqlcdc.lsn.Lsn;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CdcOffsetTest {

  private static String fixture(String name) throws IOException {
    try (InputStream in = CdcOffsetTest.class.getResourceAsStream("/offsets/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    }
  }

  @Test
  void readsTheReferenceOffsetExactly() throws IOException {
    CdcOffset o = CdcOffset.fromJson(fixture("reference-v1.json"));
    assertThat(o.lsn()).isEqualTo(Lsn.parse("0x0000002A000001F00003"));
    assertThat(o.commitTs()).hasValue(Instant.parse("2026-09-28T14:03:12.117Z"));
    assertThat(o.commitTsText()).isEqualTo("2026-09-28T14:03:12.117");
    assertThat(o.source()).isEmpty();
  }

  @Test
  void readsAnEmptyCommitTs() throws IOException {
    CdcOffset o = CdcOffset.fromJson(fixture("reference-empty-commit-ts.json"));
    assertThat(o.lsn()).isEqualTo(Lsn.parse("0x0000002A000001000081"));
    assertThat(o.commitTs()).isEmpty();
    assertThat(o.json()).isEqualTo("{\"lsn\":\"0x0000002A000001000081\",\"commit_ts\":\"\",\"v\":1}");
  }

  @Test
  void writesThePinnedJson() throws IOException {
    CdcOffset o = CdcOffset.of(Lsn.parse("2a000001f00003"), Instant.parse("2026-09-28T14:03:12.117891Z"), "dbo.orders");
    assertThat(o.json()).isEqualTo(fixture("jvm-v1.json"));
    assertThat(CdcOffset.fromJson(o.json())).isEqualTo(o);
  }

  @Test
  void commitTsAlwaysHasMilliseconds() {
    CdcOffset o = CdcOffset.of(Lsn.parse("0x01"), Instant.parse("2026-09-28T14:03:12Z"), null);
    assertThat(o.commitTsText()).isEqualTo("2026-09-28T14:03:12.000");
    assertThat(CdcOffset.fromJson("{\"lsn\":\"0x01\",\"commit_ts\":\"2026-09-28T14:03:12\"}").commitTsText())
        .isEqualTo("2026-09-28T14:03:12.000");
  }

  @Test
  void rejectsANewerFormatVersion() throws IOException {
    String json = fixture("future-v2.json");
    assertThatThrownBy(() -> CdcOffset.fromJson(json))
        .isInstanceOf(CdcStateException.class)
        .hasMessageContaining("format version 2")
        .hasMessageContaining("reads versions up to 1")
        .hasMessageContaining("Upgrade the library");
  }

  @Test
  void rejectsMalformedOffsetsWithAnExample() {
    assertThatThrownBy(() -> CdcOffset.fromJson("not json"))
        .isInstanceOf(CdcStateException.class)
        .hasMessageContaining("Cannot read the offset not json from the checkpoint: it is not JSON")
        .hasMessageContaining("Expected e.g. {\"lsn\": \"0x0000002A000001F00003\"");
    assertThatThrownBy(() -> CdcOffset.fromJson("{\"commit_ts\":\"\"}")).hasMessageContaining("'lsn' is missing");
    assertThatThrownBy(() -> CdcOffset.fromJson("{\"lsn\":\"0xZZ\"}")).hasMessageContaining("'lsn' is not an LSN");
    assertThatThrownBy(() -> CdcOffset.fromJson("{\"lsn\":\"0x01\",\"commit_ts\":\"yesterday\"}"))
        .hasMessageContaining("'commit_ts' is not an ISO-8601 time");
  }

  @Test
  void offsetsNeverMoveBackwards() {
    CdcOffset a = CdcOffset.of(Lsn.parse("0x20"), null, "dbo.orders");
    CdcOffset b = CdcOffset.of(Lsn.parse("0x10"), null, "dbo.orders");
    CdcOffset.checkForward(b, a);
    CdcOffset.checkForward(a, a);
    assertThatThrownBy(() -> CdcOffset.checkForward(a, b))
        .isInstanceOf(CdcStateException.class)
        .hasMessageContaining("from {\"lsn\":\"0x00000000000000000020\"")
        .hasMessageContaining("to {\"lsn\":\"0x00000000000000000010\"");
  }

  @Test
  void aCheckpointOfAnotherSourceFailsClearly() {
    CdcOffset a = CdcOffset.of(Lsn.parse("0x20"), null, "dbo.orders");
    assertThatThrownBy(() -> a.checkSource("dbo.customers"))
        .isInstanceOf(CdcStateException.class)
        .hasMessageContaining("belong to source 'dbo.orders', but this query reads 'dbo.customers'")
        .hasMessageContaining("use a new checkpointLocation");
    assertThat(a.checkSource("DBO.Orders")).isSameAs(a);
    CdcOffset reference = CdcOffset.of(Lsn.parse("0x20"), null, null); // the Python reference's: no source
    assertThat(reference.checkSource("dbo.customers")).as("accepted as it is").isSameAs(reference);
  }
}

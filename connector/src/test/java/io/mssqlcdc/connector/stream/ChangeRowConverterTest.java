package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.lsn.Lsn;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("spark")
class ChangeRowConverterTest {
  @Test
  void lsnTextIsTheCanonicalTextAsUtf8() {
    Lsn[] lsns = {Lsn.ZERO, Lsn.of(0xFFFF, -1L), Lsn.of(0x2A, 0x0000_0123_0000_ABCDL), Lsn.of(1, Long.MIN_VALUE),
        Lsn.parse("0x0000002A000001230003")};
    for (Lsn l : lsns) {
      assertThat(ChangeRowConverter.lsnText(l)).as("%s", l).isEqualTo(UTF8String.fromString(l.toString()));
    }
    assertThat(ChangeRowConverter.lsnText(Lsn.of(0x2A, 0x0000_0123_0000_ABCDL))).hasToString("0x002A000001230000ABCD");
  }
}

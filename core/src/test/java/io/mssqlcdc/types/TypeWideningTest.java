package io.mssqlcdc.types;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TypeWideningTest {

  @ParameterizedTest(name = "{0} -> {1}: {2}")
  @CsvSource(delimiter = '|', value = {
      "int|int|true",
      "INT| int |true",
      "tinyint|smallint|true",
      "smallint|int|true",
      "int|bigint|true",
      "tinyint|bigint|true",
      "bigint|int|false",
      "int|smallint|false",
      "float|double|true",
      "double|float|false",
      "date|timestamp_ntz|true",
      "timestamp_ntz|date|false",
      "date|timestamp|false",
      "tinyint|double|true",
      "smallint|double|true",
      "int|double|true",
      "bigint|double|false",
      "int|float|false",
      "tinyint|decimal(3,0)|true",
      "tinyint|decimal(4,2)|false",
      "smallint|decimal(5,0)|true",
      "int|decimal(10,0)|true",
      "int|decimal(11,2)|false",
      "int|decimal(12,2)|true",
      "bigint|decimal(20,0)|true",
      "bigint|decimal(19,0)|false",
      "decimal(10,2)|decimal(12,4)|true",
      "decimal(10,2)|decimal(11,3)|true",
      "decimal(10,2)|decimal(11,4)|false",
      "decimal(10,2)|decimal(10,1)|false",
      "decimal(10,2)|int|false",
      "decimal(5,2)|double|false",
      "string|string|true",
      "string|binary|false",
      "integer|bigint|true",
      "long|decimal(20,0)|true",
  })
  void widensAsTheReferenceDoes(String from, String to, boolean fits) {
    assertThat(TypeWidening.fits(from, to)).isEqualTo(fits);
  }
}

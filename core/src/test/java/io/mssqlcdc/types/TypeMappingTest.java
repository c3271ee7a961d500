package io.mssqlcdc.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TypeMappingTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "bit|boolean",
      "tinyint|smallint",
      "smallint|smallint",
      "int|int",
      "bigint|bigint",
      "real|float",
      "float|double",
      "decimal(18,2)|decimal(18,2)",
      "numeric(38,10)|decimal(38,10)",
      "decimal(5,0)|decimal(5,0)",
      "money|decimal(19,4)",
      "smallmoney|decimal(10,4)",
      "date|date",
      "datetime|timestamp_ntz",
      "datetime2(7)|timestamp_ntz",
      "smalldatetime|timestamp_ntz",
      "datetimeoffset(7)|timestamp",
      "time(7)|string",
      "char(10)|string",
      "varchar(max)|string",
      "nchar(3)|string",
      "nvarchar(50)|string",
      "text|string",
      "ntext|string",
      "xml|string",
      "uniqueidentifier|string",
      "sysname|string",
      "binary(16)|binary",
      "varbinary(max)|binary",
      "image|binary",
      "timestamp|binary",
  })
  void mapsEveryRowOfTheTable(String sql, String spark) {
    assertThat(TypeMapping.sparkType(SqlServerType.parse(sql))).hasValue(spark);
  }

  @ParameterizedTest
  @ValueSource(strings = {"sql_variant", "geography", "geometry", "hierarchyid"})
  void unsupportedTypesFailNamingTheColumn(String sql) {
    assertThat(TypeMapping.sparkType(SqlServerType.parse(sql))).isEmpty();
    assertThatThrownBy(() -> TypeMapping.sparkType("dbo_orders", "shape", SqlServerType.parse(sql)))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("dbo_orders.shape: no default Spark type for SQL Server type '" + sql + "'")
        .hasMessageContaining("Pass 'columns'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"int", "decimal(18,2)", "nvarchar(50)", "varchar(max)", "datetime2(3)", "varbinary(max)",
      "datetimeoffset(7)", "time(0)"})
  void declarationsRoundTrip(String decl) {
    assertThat(SqlServerType.parse(decl).declaration()).isEqualTo(decl);
  }
}

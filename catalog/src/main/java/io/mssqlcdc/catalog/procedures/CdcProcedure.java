package io.mssqlcdc.catalog.procedures;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A {@code CALL <catalog>.system.<name>(...)} procedure: a thin adapter that reads its
 * {@link Param}s, calls the Java API with them and returns one typed result set. The Java API
 * checks the arguments (its error codes and messages reach the caller unchanged); the adapter
 * adds only the catalog's reader options and the {@code table} → capture instance resolution.
 * Bound as declared, whatever the argument types (Spark casts them to the declared types).
 */
public abstract class CdcProcedure implements UnboundProcedure, BoundProcedure {
  /** A result column: name, type and doc. */
  record Column(String name, DataType type, String doc) {
    StructField field() {
      return new StructField(name, type, true, Metadata.empty()).withComment(doc);
    }
  }

  protected final CatalogContext context;

  protected CdcProcedure(CatalogContext context) {
    this.context = context;
  }

  /** The parameters, required ones first. */
  abstract List<Param> params();

  /** The result columns. */
  abstract List<Column> columns();

  /** Runs the call: one array of column values per result row. */
  abstract List<Object[]> run(SparkSession spark, Args args);

  @Override
  public BoundProcedure bind(StructType inputType) {
    return this;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return Param.check(params()).stream().map(Param::toSpark).toArray(ProcedureParameter[]::new);
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  StructType resultSchema() {
    return new StructType(columns().stream().map(Column::field).toArray(StructField[]::new));
  }

  @Override
  public Iterator<Scan> call(InternalRow input) {
    List<Object[]> rows = run(SparkSession.active(), new Args(params(), input));
    return List.<Scan>of(new ResultScan(resultSchema(), rows)).iterator();
  }

  static Column column(String name, DataType type, String doc) {
    return new Column(name, type, doc);
  }

  static final DataType STRING = DataTypes.StringType;
  static final DataType BOOLEAN = DataTypes.BooleanType;
  static final DataType LONG = DataTypes.LongType;
  static final DataType INT = DataTypes.IntegerType;
  static final DataType DOUBLE = DataTypes.DoubleType;
  static final DataType TIMESTAMP_NTZ = DataTypes.TimestampNTZType;
  static final DataType TIMESTAMP = DataTypes.TimestampType;
}

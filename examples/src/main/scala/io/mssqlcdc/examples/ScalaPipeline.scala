package io.mssqlcdc.examples

import io.mssqlcdc.fake.FakeCdcDatabase
import io.mssqlcdc.fake.FakeRows.{key, row}
import io.mssqlcdc.sink.pipeline.CdcStream
import java.nio.file.{Files, Path}
import org.apache.spark.sql.SparkSession

/**
 * The pipeline from a Scala job: SQL Server CDC into Delta bronze + facts with `CdcStream`.
 *
 * Without a connection string it runs on the fake (a simulated CDC database on local files): a table and
 * some changes, a bootstrap snapshot into bronze, the changes, a restart on the same checkpoint, then a
 * check of bronze's latest image per key against the table. With one, it streams that server's capture
 * instance (nothing is written to the server).
 *
 * {{{
 * mvn -B -ntp -Pscala-example -DskipTests verify                  # on the fake, from the repository root
 * spark-submit --class io.mssqlcdc.examples.ScalaPipeline \
 *   --packages io.mssqlcdc:mssql-cdc-spark_2.13:<v>,io.delta:delta-spark_4.2_2.13:4.4.0 \
 *   examples.jar /lake 'jdbc:sqlserver://host:1433;databaseName=shop;user=cdc_reader;password=...' dbo_orders
 * }}}
 */
object ScalaPipeline {
  def main(args: Array[String]): Unit = {
    val work = Path.of(if (args.length > 0) args(0) else "target/scala-example").toAbsolutePath
    val connection = if (args.length > 1) Some(args(1)) else None
    val captureInstance = if (args.length > 2) args(2) else "dbo_orders"

    val spark = SparkSession.builder()
      .appName("mssql-cdc-scala-example")
      .master(sys.props.getOrElse("spark.master", "local[2]"))
      .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
      .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
      .getOrCreate()

    val source: Map[String, String] = connection match {
      case Some(url) => Map("connectionString" -> url, "captureInstance" -> captureInstance)
      case None =>
        val db = FakeCdcDatabase.create(Files.createDirectories(work).resolve("source"))
        db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id")
        db.enableCdc("dbo", "orders")
        db.commit { tx => (1 to 50).foreach(i => tx.insert("dbo.orders", row("order_id", i, "status", "new", "amount", s"$i.50"))) }
        sys.addShutdownHook(db.close())
        later = Some(() => {
          (1 to 5).foreach(i => db.commit { tx => tx.update("dbo.orders", row("order_id", i, "status", "paid")) })
          db.commit { tx => tx.delete("dbo.orders", key(50)).insert("dbo.orders", row("order_id", 51, "status", "new")) }
        })
        Map("backend" -> "fake", "fakePath" -> db.path.toString, "captureInstance" -> "dbo_orders")
    }

    val bronze = work.resolve("lake/bronze_orders").toString
    val facts = work.resolve("lake/cdc_facts").toString
    def stream(): CdcStream.Builder = {
      val b = CdcStream.builder(spark)
      source.foreach { case (k, v) => b.option(k, v) }
      b.option("maxCommitsPerBatch", "10")
        .target(bronze).appId("orders").checkpoint(work.resolve("checkpoints/orders").toString)
        .factsTable(facts).bootstrap(true).trigger("availableNow")
    }

    stream().toDelta().awaitTermination()
    later.foreach(_.apply())
    stream().toDelta().awaitTermination() // the same checkpoint: only what is new

    spark.read.format("delta").load(facts)
      .selectExpr("app_id", "batch_id", "event", "rows", "inserts", "updates", "deletes", "end_lsn")
      .orderBy("written_at", "batch_id").show(50, truncate = false)

    val latest = spark.sql(
      s"""SELECT order_id, status, amount FROM (
         |  SELECT *, row_number() OVER (PARTITION BY order_id
         |           ORDER BY _start_lsn DESC, _command_id DESC, _seqval DESC, _operation DESC) AS n
         |  FROM delta.`$bronze`) WHERE n = 1 AND _operation <> 1""".stripMargin)
    val table = spark.read.format("mssql_cdc_snapshot").options(source).load().select("order_id", "status", "amount")
    val missing = table.exceptAll(latest).count()
    val extra = latest.exceptAll(table).count()
    val rows = table.count()
    spark.stop()
    if (missing != 0 || extra != 0) {
      println(s"SCALA PIPELINE FAILED: $missing source rows not in bronze's latest images, $extra extra")
      sys.exit(1)
    }
    println(s"SCALA PIPELINE OK rows=$rows")
  }

  /** The fake's second batch of changes (none against a real server). */
  private var later: Option[() => Unit] = None
}

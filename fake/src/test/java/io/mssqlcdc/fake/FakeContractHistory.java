package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.lsn.Lsn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** The contract history on a fresh fake database in a temporary directory. */
public final class FakeContractHistory implements ContractHistory {
  private final Path dir;
  private final FakeCdcDatabase db;
  private final FakeCdcClient client;
  private final List<FakeCdcClient> others = new java.util.ArrayList<>();

  public FakeContractHistory() {
    try {
      dir = Files.createTempDirectory("fake-contract");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    db = FakeCdcDatabase.create(dir);
    client = db.client();
  }

  FakeCdcDatabase db() {
    return db;
  }

  /** The fake database's directory (the SQL Server wire stand-in serves it). */
  public Path path() {
    return dir;
  }

  @Override
  public String createTrackedTable(String table) {
    db.createTable("dbo", table, "id int", "name nvarchar(50)", "amount decimal(18,2)").key("id");
    return db.enableCdc("dbo", table);
  }

  @Override
  public Lsn commit(String table, List<RowOp> ops) {
    String t = "dbo." + table;
    return db.commit(tx -> {
      for (RowOp op : ops) {
        switch (op.kind()) {
          case INSERT -> tx.insert(t, row("id", op.id(), "name", op.name(), "amount", op.amount()));
          case UPDATE -> tx.update(t, row("id", op.id(), "name", op.name(), "amount", op.amount()));
          case DELETE -> tx.delete(t, key(op.id()));
        }
      }
    });
  }

  @Override
  public Lsn commitAt(String table, List<RowOp> ops, LocalDateTime serverTime) {
    String t = "dbo." + table;
    return db.commitAt(serverTime, tx -> {
      for (RowOp op : ops) {
        switch (op.kind()) {
          case INSERT -> tx.insert(t, row("id", op.id(), "name", op.name(), "amount", op.amount()));
          case UPDATE -> tx.update(t, row("id", op.id(), "name", op.name(), "amount", op.amount()));
          case DELETE -> tx.delete(t, key(op.id()));
        }
      }
    });
  }

  @Override
  public CdcClient clientWithClock(String ianaZone) {
    FakeCdcClient c = FakeCdcClient.open(dir, ianaZone);
    others.add(c);
    return c;
  }

  @Override
  public void addCaptureInstance(String table, String name, List<String> columns) {
    db.enableCdc("dbo", table, name, columns.toArray(String[]::new));
  }

  @Override
  public void cleanup(String captureInstance, Lsn lowWatermark) {
    db.cleanup(captureInstance, lowWatermark);
  }

  @Override
  public CdcClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
    others.forEach(FakeCdcClient::close);
    db.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

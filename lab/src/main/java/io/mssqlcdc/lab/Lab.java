package io.mssqlcdc.lab;

import io.mssqlcdc.client.jdbc.ConnectionStrings;
import io.mssqlcdc.errors.Secrets;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * Workload CLI against a real SQL Server (lab/README.md): {@code setup} (database, tables, CDC),
 * {@code seed} (customers and orders), {@code stream} (a steady mix of order inserts, updates and
 * deletes at {@code --tps} for {@code --duration}), {@code bulk} (large transactions), and
 * {@code long-tx} (one transaction held open for {@code --hold}). Every random choice comes from
 * one {@link Random} seeded with {@code --seed}: the same seed on the same starting table replays
 * the same workload.
 */
public final class Lab {
  private static final String[] STATUSES = {"new", "paid", "packed", "shipped", "delivered", "returned"};
  private static final String[] CITIES = {"Lisboa", "São Paulo", "Köln", "Zürich", "Kraków", "Montréal", null};

  private final LabOptions options;
  private final Random random;

  Lab(LabOptions options) {
    this.options = options;
    this.random = new Random(options.seed());
  }

  public static void main(String[] args) {
    LabOptions options;
    try {
      options = LabOptions.parse(args, System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println(Secrets.redact(e.getMessage()));
      System.err.println(LabOptions.usage());
      System.exit(2);
      return;
    }
    try {
      new Lab(options).run();
    } catch (SQLException e) {
      System.err.println("lab " + options.command + " failed: error " + e.getErrorCode() + " (SQLState " + e.getSQLState()
          + "): " + Secrets.redact(e.getMessage()));
      System.exit(1);
    }
  }

  void run() throws SQLException {
    switch (options.command) {
      case "setup" -> setup();
      case "seed" -> seed();
      case "stream" -> stream();
      case "bulk" -> bulk();
      case "long-tx" -> longTx();
      default -> throw new IllegalStateException(options.command);
    }
  }

  private Connection connect(boolean toDatabase) throws SQLException {
    ConnectionStrings.Target t = ConnectionStrings.toJdbc(options.url(), 30, false);
    Properties p = new Properties();
    p.putAll(t.properties());
    if (toDatabase) {
      p.setProperty("databaseName", options.database());
    }
    Connection c = new com.microsoft.sqlserver.jdbc.SQLServerDriver().connect(t.url(), p);
    if (c == null) {
      throw new SQLException("Not a SQL Server URL: " + t, "08001");
    }
    return c;
  }

  private void setup() throws SQLException {
    try (Connection c = connect(false); Statement st = c.createStatement()) {
      st.execute(LabSql.createDatabase(options.database()));
    }
    try (Connection c = connect(true); Statement st = c.createStatement()) {
      st.execute(LabSql.ENABLE_DB);
      st.execute(LabSql.CUSTOMERS);
      st.execute(LabSql.ORDERS);
      st.execute(LabSql.enableTable("customers"));
      st.execute(LabSql.enableTable("orders"));
    }
    System.out.println("setup: database " + options.database() + " ready, CDC on dbo.customers and dbo.orders"
        + " (capture instances dbo_customers, dbo_orders)");
  }

  private void seed() throws SQLException {
    try (Connection c = connect(true)) {
      int customers = Math.max(1, options.rows() / 10);
      int firstCustomer = scalarInt(c, LabSql.MAX_CUSTOMER_ID) + 1;
      int firstOrder = scalarInt(c, LabSql.MAX_ORDER_ID) + 1;
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(LabSql.INSERT_CUSTOMER)) {
        for (int i = 0; i < customers; i++) {
          int id = firstCustomer + i;
          ps.setInt(1, id);
          ps.setString(2, "Customer " + id);
          ps.setString(3, "c" + id + "@example.com");
          ps.setString(4, CITIES[random.nextInt(CITIES.length)]);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      c.commit();
      int written = insertOrders(c, firstOrder, options.rows(), firstCustomer, customers);
      System.out.println("seed: " + customers + " customers, " + written + " orders (seed " + options.seed() + ")");
    }
  }

  private void bulk() throws SQLException {
    try (Connection c = connect(true)) {
      int customers = Math.max(1, scalarInt(c, LabSql.MAX_CUSTOMER_ID));
      int first = scalarInt(c, LabSql.MAX_ORDER_ID) + 1;
      c.setAutoCommit(false);
      long t0 = System.nanoTime();
      int written = insertOrders(c, first, options.rows(), 1, customers);
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf("bulk: %d orders in transactions of %d, %.1f s (%.0f rows/s)%n", written, options.batch(), s, written / s);
    }
  }

  /** Inserts {@code rows} orders from id {@code first}, committing every {@code --batch} rows. */
  private int insertOrders(Connection c, int first, int rows, int firstCustomer, int customers) throws SQLException {
    int written = 0;
    try (PreparedStatement ps = c.prepareStatement(LabSql.INSERT_ORDER)) {
      while (written < rows) {
        int n = Math.min(options.batch(), rows - written);
        for (int i = 0; i < n; i++) {
          bindOrder(ps, first + written + i, firstCustomer + random.nextInt(customers));
          ps.addBatch();
        }
        ps.executeBatch();
        c.commit();
        written += n;
      }
    }
    return written;
  }

  private void bindOrder(PreparedStatement ps, int orderId, int customerId) throws SQLException {
    ps.setInt(1, orderId);
    ps.setInt(2, customerId);
    ps.setString(3, STATUSES[random.nextInt(2)]);
    ps.setBigDecimal(4, amount());
  }

  private BigDecimal amount() {
    return BigDecimal.valueOf(100 + random.nextInt(1_000_000), 2);
  }

  /** One transaction per tick at {@code --tps}, operations drawn from {@code --mix}. */
  private void stream() throws SQLException {
    Mix mix = options.mix();
    Duration duration = options.duration();
    long interval = 1_000_000_000L / options.tps();
    try (Connection c = connect(true);
        PreparedStatement insert = c.prepareStatement(LabSql.INSERT_ORDER);
        PreparedStatement update = c.prepareStatement(LabSql.UPDATE_ORDER);
        PreparedStatement delete = c.prepareStatement(LabSql.DELETE_ORDER)) {
      int customers = Math.max(1, scalarInt(c, LabSql.MAX_CUSTOMER_ID));
      int nextId = scalarInt(c, LabSql.MAX_ORDER_ID) + 1;
      List<Integer> live = new ArrayList<>();
      int[] counts = new int[3];
      long start = System.nanoTime();
      long end = start + duration.toNanos();
      long next = start;
      while (next < end) {
        LockSupport.parkNanos(next - System.nanoTime());
        Mix.Op op = live.isEmpty() ? Mix.Op.INSERT : mix.pick(random);
        switch (op) {
          case INSERT -> {
            bindOrder(insert, nextId, 1 + random.nextInt(customers));
            insert.executeUpdate();
            live.add(nextId++);
          }
          case UPDATE -> {
            update.setString(1, STATUSES[random.nextInt(STATUSES.length)]);
            update.setBigDecimal(2, amount());
            update.setInt(3, live.get(random.nextInt(live.size())));
            update.executeUpdate();
          }
          case DELETE -> {
            delete.setInt(1, live.remove(random.nextInt(live.size())));
            delete.executeUpdate();
          }
        }
        counts[op.ordinal()]++;
        next += interval;
      }
      double s = (System.nanoTime() - start) / 1e9;
      System.out.printf("stream: %d inserts, %d updates, %d deletes in %.1f s (%.1f tps, seed %d)%n",
          counts[0], counts[1], counts[2], s, (counts[0] + counts[1] + counts[2]) / s, options.seed());
    }
  }

  /** Inserts orders in one transaction and keeps it open for {@code --hold}: capture waits for its commit. */
  private void longTx() throws SQLException {
    try (Connection c = connect(true)) {
      int customers = Math.max(1, scalarInt(c, LabSql.MAX_CUSTOMER_ID));
      int first = scalarInt(c, LabSql.MAX_ORDER_ID) + 1;
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(LabSql.INSERT_ORDER)) {
        bindOrder(ps, first, 1 + random.nextInt(customers));
        ps.executeUpdate();
      }
      System.out.println("long-tx: order " + first + " written, transaction open for " + options.hold().toSeconds() + " s");
      LockSupport.parkNanos(options.hold().toNanos());
      c.commit();
      System.out.println("long-tx: committed");
    }
  }

  private static int scalarInt(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}

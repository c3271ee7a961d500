/*
  heartbeat.sql: keep CDC's max LSN moving on quiet databases (optional; run by a DBA).

  Why: capture writes a cdc.lsn_time_mapping entry only when it processes a commit or, on an idle
  database, every few minutes. Streams see new data (and report capture lag) only when max_lsn moves:
  without a heartbeat, max_lsn can lag ~5 minutes (measured p50 ~305 s); with it ~10 s (worst ~20 s).

  What it does (idempotent, safe to run again):
    1. creates dbo.cdc_heartbeat (id TINYINT PK, beat_at DATETIME2(3)) with one row;
    2. enables CDC on it (capture instance dbo_cdc_heartbeat, no gating role, no net changes);
    3. creates SQL Server Agent job cdc_heartbeat_<database>, one T-SQL step
       UPDATE dbo.cdc_heartbeat SET beat_at = SYSUTCDATETIME() WHERE id = 1;
       every 10 seconds (the Agent minimum).

  Needs: db_owner in the database; sysadmin or SQLAgentOperatorRole in msdb for the job.
  Cost: the heartbeat change table grows by ~8,640 rows a day; CDC cleanup removes them with the
  retention of the database. Fan-outs over every capture instance should skip dbo_cdc_heartbeat.
  The connector never writes heartbeats itself.

  Removal:
    EXEC msdb.dbo.sp_delete_job @job_name = N'cdc_heartbeat_<database>';
    EXEC sys.sp_cdc_disable_table @source_schema = N'dbo', @source_name = N'cdc_heartbeat', @capture_instance = N'dbo_cdc_heartbeat';
    DROP TABLE dbo.cdc_heartbeat;

  Run it in the CDC database, e.g.: sqlcmd -S host -d sales -i sql/heartbeat.sql
*/
SET NOCOUNT ON;
SET XACT_ABORT ON;

IF (SELECT is_cdc_enabled FROM sys.databases WHERE database_id = DB_ID()) = 0
  THROW 50001, 'CDC is not enabled on this database: run EXEC sys.sp_cdc_enable_db; first.', 1;

IF OBJECT_ID(N'dbo.cdc_heartbeat', N'U') IS NULL
BEGIN
  CREATE TABLE dbo.cdc_heartbeat (id TINYINT NOT NULL CONSTRAINT pk_cdc_heartbeat PRIMARY KEY, beat_at DATETIME2(3) NOT NULL);
END;

IF NOT EXISTS (SELECT 1 FROM dbo.cdc_heartbeat WHERE id = 1)
  INSERT INTO dbo.cdc_heartbeat (id, beat_at) VALUES (1, SYSUTCDATETIME());

IF NOT EXISTS (SELECT 1 FROM cdc.change_tables WHERE capture_instance = N'dbo_cdc_heartbeat')
  EXEC sys.sp_cdc_enable_table
    @source_schema = N'dbo',
    @source_name = N'cdc_heartbeat',
    @capture_instance = N'dbo_cdc_heartbeat',
    @role_name = NULL,
    @supports_net_changes = 0;

DECLARE @db sysname = DB_NAME();
DECLARE @job sysname = N'cdc_heartbeat_' + @db;
DECLARE @step nvarchar(max) = N'UPDATE dbo.cdc_heartbeat SET beat_at = SYSUTCDATETIME() WHERE id = 1;';

IF NOT EXISTS (SELECT 1 FROM msdb.dbo.sysjobs WHERE name = @job)
BEGIN
  EXEC msdb.dbo.sp_add_job @job_name = @job, @enabled = 1,
    @description = N'mssql-cdc-spark heartbeat: keeps sys.fn_cdc_get_max_lsn() moving (sql/heartbeat.sql).';
  EXEC msdb.dbo.sp_add_jobstep @job_name = @job, @step_name = N'beat', @subsystem = N'TSQL',
    @database_name = @db, @command = @step;
  EXEC msdb.dbo.sp_add_jobschedule @job_name = @job, @name = N'every 10 seconds', @enabled = 1,
    @freq_type = 4,              -- daily
    @freq_interval = 1,
    @freq_subday_type = 2,       -- seconds
    @freq_subday_interval = 10,  -- the Agent minimum
    @active_start_time = 0;
  EXEC msdb.dbo.sp_add_jobserver @job_name = @job, @server_name = N'(local)';
END;

PRINT N'Heartbeat ready: job ' + @job + N' updates dbo.cdc_heartbeat every 10 seconds (SQL Server Agent must run).';

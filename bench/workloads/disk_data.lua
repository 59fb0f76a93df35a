-- Seed 002's disk-data counters as a sysbench 1.0 script, against table dd:
--   create table dd (id integer primary key, ts integer, data varbinary(4096), index(ts))
-- --dd-mode=insert: each event inserts --dd-batch rows of 4096 bytes in one INSERT (run it with 1 thread and
--                   --events=rows/batch; ids are 1, 2, 3, ...)
-- --dd-mode=read:   each event reads one row by a uniformly random id in 1..--dd-rows and checks it came back
sysbench.cmdline.options = {
  ["dd-mode"] = {"insert or read", "insert"},
  ["dd-rows"] = {"rows in dd (read mode)", 10000},
  ["dd-batch"] = {"rows per INSERT", 5},
  ["dd-size"] = {"bytes in data", 4096},
}

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  next_id = 1
  pattern = string.rep("@", sysbench.opt.dd_size)
end

function event()
  if sysbench.opt.dd_mode == "insert" then
    local v = {}
    for i = 1, sysbench.opt.dd_batch do
      v[i] = string.format("(%d,%d,'%s')", next_id, sysbench.rand.uniform(0, 2000000000),
                           sysbench.rand.string(pattern))
      next_id = next_id + 1
    end
    con:query("INSERT INTO dd (id, ts, data) VALUES " .. table.concat(v, ","))
  else
    local id = sysbench.rand.uniform(1, sysbench.opt.dd_rows)
    local rs = con:query("SELECT data FROM dd WHERE id = " .. id)
    if rs == nil or rs.nrows ~= 1 then
      error("SELECT by id " .. id .. " did not return one row")
    end
  end
end

function thread_done()
  con:disconnect()
end

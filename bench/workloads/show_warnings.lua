-- Seed 000's SHOW WARNINGS flood as a sysbench 1.0 script: every event is one SHOW WARNINGS.
-- sysbench show_warnings.lua --threads=30 --time=10 --mysql-compression=on|off run
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function event()
  con:query("SHOW WARNINGS")
end

function thread_done()
  con:disconnect()
end

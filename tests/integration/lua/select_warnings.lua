-- sysbench script for the integration tests: each event runs a statement that raises a warning,
-- reads it back with SHOW WARNINGS and checks the values, so a wrong answer fails the run.
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function event()
  local rs = con:query("SELECT 1 + 1, 1/0")
  local row = rs:fetch_row()
  if row[1] ~= "2" or row[2] ~= nil then
    error(string.format("SELECT gave %s, %s", tostring(row[1]), tostring(row[2])))
  end
  local w = con:query("SHOW WARNINGS")
  if w.nrows ~= 1 then
    error("SHOW WARNINGS gave " .. w.nrows .. " rows")
  end
  local wr = w:fetch_row()
  if wr[2] ~= "1365" then
    error("warning code " .. tostring(wr[2]))
  end
end

function thread_done()
  con:disconnect()
end

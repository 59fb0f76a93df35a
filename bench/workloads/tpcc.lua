-- A TPC-C-like workload as a sysbench 1.0 script (not a conforming TPC-C: no terminals, no keying or think time;
-- bench/workloads/TPCC.md says how it departs from the specification).
--
--   sysbench tpcc.lua --warehouses=10 --threads=4 prepare    create the nine tables and load them; each thread loads
--                                                          the warehouses w with (w - 1) % threads == its id,
--                                                          thread 0 also the 100,000 items
--   sysbench tpcc.lua --warehouses=10 --threads=16 --time=60 --mysql-ignore-errors=1213,1205 run
--   sysbench tpcc.lua cleanup                               drop the nine tables
--
-- run: every event is one transaction of the mix New-Order 45%, Payment 43%, Order-Status 4%, Delivery 4%,
-- Stock-Level 4%, on a uniformly random home warehouse, each in BEGIN ... COMMIT (ROLLBACK for the 1% of
-- New-Orders that name an unused item).  A deadlock or lock wait timeout (1213, 1205, given to
-- --mysql-ignore-errors) makes sysbench count an ignored error and restart the event: the hook below rolls back
-- and the event runs the same transaction again with the same inputs, until it commits.  A transaction's latency
-- therefore includes its failed attempts.  Any other error ends the run.
--
-- At the end each thread prints one line to stdout:
--   TPCC-THREAD new_order=N payment=N order_status=N delivery=N stock_level=N rollback=N retries=N
--       no_district=N
-- (committed transactions per type, New-Orders rolled back on purpose, attempts restarted after 1213/1205, and
-- Delivery districts that had no new order).  bench/workloads/tpcc sums them.

sysbench.cmdline.options = {
  warehouses = {"number of warehouses", 10},
  ["load-batch"] = {"rows per INSERT when loading", 500},
  ["load-commit"] = {"INSERT statements per transaction when loading", 4},
}

local bit = require("bit")

-- TPC-C cardinalities
local ITEMS = 100000
local DISTRICTS = 10          -- per warehouse
local CUSTOMERS = 3000        -- per district
local ORDERS = 3000           -- per district
local NEW_ORDERS = 900        -- the last 900 orders of each district
local FIRST_NEW_ORDER = ORDERS - NEW_ORDERS + 1

-- NURand constants.  C_LAST_LOAD and C_LAST_RUN differ by 66 (the specification asks for 65..119, not 96 or 112).
local C_LAST_LOAD = 157
local C_LAST_RUN = 223
local C_CID = 259
local C_OL_I_ID = 7911

local rnd = sysbench.rand.uniform

local function nurand(a, c, x, y)
  return (bit.bor(rnd(0, a), rnd(x, y)) + c) % (y - x + 1) + x
end

local SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

local function last_name(n)
  return SYLLABLES[math.floor(n / 100) + 1] .. SYLLABLES[math.floor(n / 10) % 10 + 1] .. SYLLABLES[n % 10 + 1]
end

local patterns = {}

-- a random string of lo..hi letters (TPC-C's a-string; letters only, so it never needs quoting)
local function astr(lo, hi)
  local n = lo
  if hi ~= nil and hi > lo then n = rnd(lo, hi) end
  local p = patterns[n]
  if p == nil then
    p = string.rep("@", n)
    patterns[n] = p
  end
  return sysbench.rand.string(p)
end

local function nstr(n)
  return sysbench.rand.string(string.rep("#", n))
end

local function zip()
  return nstr(4) .. "11111"
end

-- i_data / s_data: 26..50 letters, 10% with "ORIGINAL" at a random place
local function data_field()
  local s = astr(26, 50)
  if rnd(1, 10) == 1 then
    local pos = rnd(1, #s - 7)
    s = s:sub(1, pos - 1) .. "ORIGINAL" .. s:sub(pos + 8)
  end
  return s
end

-- money as text from integer cents
local function money(cents)
  local sign = ""
  if cents < 0 then
    sign = "-"
    cents = -cents
  end
  return string.format("%s%d.%02d", sign, math.floor(cents / 100), cents % 100)
end

local function cents_of(text)
  return math.floor(tonumber(text) * 100 + 0.5)
end

local function quote(s)
  return "'" .. s:gsub("\\", "\\\\"):gsub("'", "''") .. "'"
end

-- ---------------------------------------------------------------------------------------------------------------
-- schema

local TABLES = {"warehouse", "district", "customer", "history", "new_orders", "orders", "order_line", "item", "stock"}

local DDL = {
  warehouse = [[
CREATE TABLE IF NOT EXISTS warehouse (
  w_id INT NOT NULL,
  w_name VARCHAR(10),
  w_street_1 VARCHAR(20),
  w_street_2 VARCHAR(20),
  w_city VARCHAR(20),
  w_state CHAR(2),
  w_zip CHAR(9),
  w_tax DECIMAL(4,4),
  w_ytd DECIMAL(12,2),
  PRIMARY KEY (w_id)
) ENGINE=InnoDB]],
  district = [[
CREATE TABLE IF NOT EXISTS district (
  d_id SMALLINT NOT NULL,
  d_w_id INT NOT NULL,
  d_name VARCHAR(10),
  d_street_1 VARCHAR(20),
  d_street_2 VARCHAR(20),
  d_city VARCHAR(20),
  d_state CHAR(2),
  d_zip CHAR(9),
  d_tax DECIMAL(4,4),
  d_ytd DECIMAL(12,2),
  d_next_o_id INT,
  PRIMARY KEY (d_w_id, d_id)
) ENGINE=InnoDB]],
  customer = [[
CREATE TABLE IF NOT EXISTS customer (
  c_id INT NOT NULL,
  c_d_id SMALLINT NOT NULL,
  c_w_id INT NOT NULL,
  c_first VARCHAR(16),
  c_middle CHAR(2),
  c_last VARCHAR(16),
  c_street_1 VARCHAR(20),
  c_street_2 VARCHAR(20),
  c_city VARCHAR(20),
  c_state CHAR(2),
  c_zip CHAR(9),
  c_phone CHAR(16),
  c_since DATETIME,
  c_credit CHAR(2),
  c_credit_lim DECIMAL(12,2),
  c_discount DECIMAL(4,4),
  c_balance DECIMAL(12,2),
  c_ytd_payment DECIMAL(12,2),
  c_payment_cnt SMALLINT,
  c_delivery_cnt SMALLINT,
  c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id),
  KEY idx_customer_name (c_w_id, c_d_id, c_last, c_first)
) ENGINE=InnoDB]],
  history = [[
CREATE TABLE IF NOT EXISTS history (
  h_c_id INT,
  h_c_d_id SMALLINT,
  h_c_w_id INT,
  h_d_id SMALLINT,
  h_w_id INT,
  h_date DATETIME,
  h_amount DECIMAL(6,2),
  h_data VARCHAR(24)
) ENGINE=InnoDB]],
  new_orders = [[
CREATE TABLE IF NOT EXISTS new_orders (
  no_o_id INT NOT NULL,
  no_d_id SMALLINT NOT NULL,
  no_w_id INT NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)
) ENGINE=InnoDB]],
  orders = [[
CREATE TABLE IF NOT EXISTS orders (
  o_id INT NOT NULL,
  o_d_id SMALLINT NOT NULL,
  o_w_id INT NOT NULL,
  o_c_id INT,
  o_entry_d DATETIME,
  o_carrier_id SMALLINT,
  o_ol_cnt SMALLINT,
  o_all_local SMALLINT,
  PRIMARY KEY (o_w_id, o_d_id, o_id),
  KEY idx_orders_customer (o_w_id, o_d_id, o_c_id, o_id)
) ENGINE=InnoDB]],
  order_line = [[
CREATE TABLE IF NOT EXISTS order_line (
  ol_o_id INT NOT NULL,
  ol_d_id SMALLINT NOT NULL,
  ol_w_id INT NOT NULL,
  ol_number SMALLINT NOT NULL,
  ol_i_id INT,
  ol_supply_w_id INT,
  ol_delivery_d DATETIME,
  ol_quantity SMALLINT,
  ol_amount DECIMAL(6,2),
  ol_dist_info CHAR(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
) ENGINE=InnoDB]],
  item = [[
CREATE TABLE IF NOT EXISTS item (
  i_id INT NOT NULL,
  i_im_id INT,
  i_name VARCHAR(24),
  i_price DECIMAL(5,2),
  i_data VARCHAR(50),
  PRIMARY KEY (i_id)
) ENGINE=InnoDB]],
  stock = [[
CREATE TABLE IF NOT EXISTS stock (
  s_i_id INT NOT NULL,
  s_w_id INT NOT NULL,
  s_quantity SMALLINT,
  s_dist_01 CHAR(24),
  s_dist_02 CHAR(24),
  s_dist_03 CHAR(24),
  s_dist_04 CHAR(24),
  s_dist_05 CHAR(24),
  s_dist_06 CHAR(24),
  s_dist_07 CHAR(24),
  s_dist_08 CHAR(24),
  s_dist_09 CHAR(24),
  s_dist_10 CHAR(24),
  s_ytd INT,
  s_order_cnt SMALLINT,
  s_remote_cnt SMALLINT,
  s_data VARCHAR(50),
  PRIMARY KEY (s_w_id, s_i_id)
) ENGINE=InnoDB]],
}

-- ---------------------------------------------------------------------------------------------------------------
-- loading

-- Rows go out in multi-row INSERTs of --load-batch rows; every --load-commit INSERTs the transaction commits.
local Loader = {}
Loader.__index = Loader

local function new_loader(con)
  local l = setmetatable({con = con, stmts = 0, batch = sysbench.opt.load_batch,
                          per_commit = sysbench.opt.load_commit, bulks = {}}, Loader)
  con:query("BEGIN")
  return l
end

function Loader:bulk(head)
  local b = {head = head, rows = {}, n = 0}
  table.insert(self.bulks, b)
  return b
end

function Loader:flush(b)
  if b.n == 0 then return end
  self.con:query(b.head .. table.concat(b.rows, ",", 1, b.n))
  b.n = 0
  self.stmts = self.stmts + 1
  if self.stmts % self.per_commit == 0 then
    self.con:query("COMMIT")
    self.con:query("BEGIN")
  end
end

function Loader:add(b, row)
  b.n = b.n + 1
  b.rows[b.n] = row
  if b.n >= self.batch then self:flush(b) end
end

function Loader:finish()
  for _, b in ipairs(self.bulks) do self:flush(b) end
  self.bulks = {}
  self.con:query("COMMIT")
end

local function load_items(con, now)
  local l = new_loader(con)
  local b = l:bulk("INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES ")
  for i = 1, ITEMS do
    l:add(b, string.format("(%d,%d,'%s',%s,'%s')", i, rnd(1, 10000), astr(14, 24), money(rnd(100, 10000)),
                           data_field()))
  end
  l:finish()
end

local function load_warehouse(con, w, now)
  local l = new_loader(con)
  con:query(string.format("INSERT INTO warehouse (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, "
                          .. "w_tax, w_ytd) VALUES (%d,'%s','%s','%s','%s','%s','%s',0.%04d,300000.00)",
                          w, astr(6, 10), astr(10, 20), astr(10, 20), astr(10, 20), astr(2), zip(), rnd(0, 2000)))
  local bd = l:bulk("INSERT INTO district (d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, "
                    .. "d_tax, d_ytd, d_next_o_id) VALUES ")
  for d = 1, DISTRICTS do
    l:add(bd, string.format("(%d,%d,'%s','%s','%s','%s','%s','%s',0.%04d,30000.00,%d)", d, w, astr(6, 10),
                            astr(10, 20), astr(10, 20), astr(10, 20), astr(2), zip(), rnd(0, 2000), ORDERS + 1))
  end
  l:flush(bd)

  local bs = l:bulk("INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, "
                    .. "s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, "
                    .. "s_remote_cnt, s_data) VALUES ")
  for i = 1, ITEMS do
    l:add(bs, string.format("(%d,%d,%d,'%s','%s','%s','%s','%s','%s','%s','%s','%s','%s',0,0,0,'%s')", i, w,
                            rnd(10, 100), astr(24), astr(24), astr(24), astr(24), astr(24), astr(24), astr(24),
                            astr(24), astr(24), astr(24), data_field()))
  end
  l:flush(bs)

  local bc = l:bulk("INSERT INTO customer (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, "
                    .. "c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, "
                    .. "c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data) VALUES ")
  local bh = l:bulk("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) "
                    .. "VALUES ")
  local bo = l:bulk("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, "
                    .. "o_all_local) VALUES ")
  local bl = l:bulk("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, "
                    .. "ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ")
  local bn = l:bulk("INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES ")
  for d = 1, DISTRICTS do
    for c = 1, CUSTOMERS do
      local last
      if c <= 1000 then last = last_name(c - 1) else last = last_name(nurand(255, C_LAST_LOAD, 0, 999)) end
      local credit = "GC"
      if rnd(1, 10) == 1 then credit = "BC" end
      l:add(bc, string.format("(%d,%d,%d,'%s','OE','%s','%s','%s','%s','%s','%s','%s','%s','%s',50000.00,"
                              .. "0.%04d,-10.00,10.00,1,0,'%s')", c, d, w, astr(8, 16), last, astr(10, 20),
                              astr(10, 20), astr(10, 20), astr(2), zip(), nstr(16), now, credit, rnd(0, 5000),
                              astr(300, 500)))
      l:add(bh, string.format("(%d,%d,%d,%d,%d,'%s',10.00,'%s')", c, d, w, d, w, now, astr(12, 24)))
    end
    -- o_c_id: a random permutation of 1..CUSTOMERS
    local perm = {}
    for i = 1, CUSTOMERS do perm[i] = i end
    for i = CUSTOMERS, 2, -1 do
      local j = rnd(1, i)
      perm[i], perm[j] = perm[j], perm[i]
    end
    for o = 1, ORDERS do
      local ol_cnt = rnd(5, 15)
      local delivered = o < FIRST_NEW_ORDER
      local carrier = "NULL"
      if delivered then carrier = tostring(rnd(1, 10)) end
      l:add(bo, string.format("(%d,%d,%d,%d,'%s',%s,%d,1)", o, d, w, perm[o], now, carrier, ol_cnt))
      for n = 1, ol_cnt do
        local ddate, amount = "NULL", "0.00"
        if delivered then ddate = "'" .. now .. "'" else amount = money(rnd(1, 999999)) end
        l:add(bl, string.format("(%d,%d,%d,%d,%d,%d,%s,5,%s,'%s')", o, d, w, n, rnd(1, ITEMS), w, ddate, amount,
                                astr(24)))
      end
      if not delivered then l:add(bn, string.format("(%d,%d,%d)", o, d, w)) end
    end
  end
  l:finish()
end

local function connect()
  local drv = sysbench.sql.driver()
  return drv:connect()
end

function cmd_prepare()
  local con = connect()
  for _, t in ipairs(TABLES) do
    con:query(DDL[t])
  end
  local now = os.date("%Y-%m-%d %H:%M:%S")
  local threads = sysbench.opt.threads
  if sysbench.tid == 0 then
    print(string.format("Loading %d items", ITEMS))
    load_items(con, now)
  end
  for w = sysbench.tid + 1, sysbench.opt.warehouses, threads do
    print(string.format("Thread %d: loading warehouse %d", sysbench.tid, w))
    load_warehouse(con, w, now)
  end
  con:disconnect()
end

function cmd_cleanup()
  local con = connect()
  for _, t in ipairs(TABLES) do
    con:query("DROP TABLE IF EXISTS " .. t)
  end
  con:disconnect()
end

sysbench.cmdline.commands = {
  prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
  cleanup = {cmd_cleanup},
}

-- ---------------------------------------------------------------------------------------------------------------
-- the five transactions

local con
local W
local counts
local pending          -- the transaction being attempted; kept when an attempt fails so the retry repeats it

local function first_row(sql)
  local rs = con:query(sql)
  if rs == nil or rs.nrows == 0 then return nil end
  return rs:fetch_row()
end

local function must_row(sql)
  local r = first_row(sql)
  if r == nil then error("tpcc: no row for " .. sql) end
  return r
end

local function other_warehouse(w)
  local o = rnd(1, W - 1)
  if o >= w then o = o + 1 end
  return o
end

local function pick_new_order(t)
  t.d = rnd(1, DISTRICTS)
  t.c = nurand(1023, C_CID, 1, CUSTOMERS)
  local n = rnd(5, 15)
  local rollback = rnd(1, 100) == 1
  local items = {}
  t.all_local = 1
  for i = 1, n do
    local it = {i_id = nurand(8191, C_OL_I_ID, 1, ITEMS), supply = t.w, qty = rnd(1, 10)}
    if i == n and rollback then it.i_id = ITEMS + 1 end
    if W > 1 and rnd(1, 100) == 1 then
      it.supply = other_warehouse(t.w)
      t.all_local = 0
    end
    items[i] = it
  end
  -- stock rows are locked in (supply warehouse, item) order, so two New-Orders cannot deadlock on them
  table.sort(items, function(a, b)
    if a.supply ~= b.supply then return a.supply < b.supply end
    return a.i_id < b.i_id
  end)
  t.items = items
end

local function tx_new_order(t)
  local w, d = t.w, t.d
  con:query("BEGIN")
  local c = must_row(string.format("SELECT c_discount, c_last, c_credit FROM customer "
                                   .. "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", w, d, t.c))
  local wr = must_row(string.format("SELECT w_tax FROM warehouse WHERE w_id = %d", w))
  local dr = must_row(string.format("SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = %d AND d_id = %d "
                                    .. "FOR UPDATE", w, d))
  local o_id = tonumber(dr[1])
  con:query(string.format("UPDATE district SET d_next_o_id = %d WHERE d_w_id = %d AND d_id = %d", o_id + 1, w, d))
  con:query(string.format("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, "
                          .. "o_all_local) VALUES (%d,%d,%d,%d,NOW(),NULL,%d,%d)", o_id, d, w, t.c, #t.items,
                          t.all_local))
  con:query(string.format("INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (%d,%d,%d)", o_id, d, w))
  local lines = {}
  local total = 0
  for n, it in ipairs(t.items) do
    local ir = first_row(string.format("SELECT i_price, i_name, i_data FROM item WHERE i_id = %d", it.i_id))
    if ir == nil then
      -- the unused item id: the specification's 1% of New-Orders that roll back
      con:query("ROLLBACK")
      return false
    end
    local sr = must_row(string.format("SELECT s_quantity, s_data, s_dist_%02d FROM stock "
                                      .. "WHERE s_i_id = %d AND s_w_id = %d FOR UPDATE", d, it.i_id, it.supply))
    local q = tonumber(sr[1])
    if q >= it.qty + 10 then q = q - it.qty else q = q - it.qty + 91 end
    local remote = 0
    if it.supply ~= w then remote = 1 end
    con:query(string.format("UPDATE stock SET s_quantity = %d, s_ytd = s_ytd + %d, s_order_cnt = s_order_cnt + 1, "
                            .. "s_remote_cnt = s_remote_cnt + %d WHERE s_i_id = %d AND s_w_id = %d",
                            q, it.qty, remote, it.i_id, it.supply))
    local amount = it.qty * cents_of(ir[1])
    total = total + amount
    lines[n] = string.format("(%d,%d,%d,%d,%d,%d,NULL,%d,%s,%s)", o_id, d, w, n, it.i_id, it.supply, it.qty,
                             money(amount), quote(sr[3]))
  end
  con:query("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, "
            .. "ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES " .. table.concat(lines, ","))
  con:query("COMMIT")
  -- the total the terminal would show (computed as the specification says, not used further)
  t.total = total * (1 - tonumber(c[1])) * (1 + tonumber(wr[1]) + tonumber(dr[2]))
  return true
end

local function pick_customer(t)
  if rnd(1, 100) <= 60 then
    t.c_last = last_name(nurand(255, C_LAST_RUN, 0, 999))
  else
    t.c_id = nurand(1023, C_CID, 1, CUSTOMERS)
  end
end

-- the customer named by last name: of those with it, ordered by c_first, the one at position ceil(n / 2)
local function customer_by_name(w, d, last, cols)
  local rs = con:query(string.format("SELECT c_id%s FROM customer WHERE c_w_id = %d AND c_d_id = %d "
                                     .. "AND c_last = '%s' ORDER BY c_first", cols, w, d, last))
  if rs == nil or rs.nrows == 0 then
    error(string.format("tpcc: no customer named %s in warehouse %d district %d", last, w, d))
  end
  local want = math.floor((rs.nrows + 1) / 2)
  local r
  for _ = 1, want do r = rs:fetch_row() end
  return r
end

local function pick_payment(t)
  t.d = rnd(1, DISTRICTS)
  if W > 1 and rnd(1, 100) <= 15 then
    t.c_w = other_warehouse(t.w)
    t.c_d = rnd(1, DISTRICTS)
  else
    t.c_w = t.w
    t.c_d = t.d
  end
  pick_customer(t)
  t.amount = rnd(100, 500000)
end

local function tx_payment(t)
  local w, d, amount = t.w, t.d, money(t.amount)
  con:query("BEGIN")
  con:query(string.format("UPDATE warehouse SET w_ytd = w_ytd + %s WHERE w_id = %d", amount, w))
  local wr = must_row(string.format("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse "
                                    .. "WHERE w_id = %d", w))
  con:query(string.format("UPDATE district SET d_ytd = d_ytd + %s WHERE d_w_id = %d AND d_id = %d", amount, w, d))
  local dr = must_row(string.format("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district "
                                    .. "WHERE d_w_id = %d AND d_id = %d", w, d))
  local c_id = t.c_id
  if c_id == nil then c_id = tonumber(customer_by_name(t.c_w, t.c_d, t.c_last, "")[1]) end
  local cr = must_row(string.format("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, "
                                    .. "c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, "
                                    .. "c_data FROM customer WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d "
                                    .. "FOR UPDATE", t.c_w, t.c_d, c_id))
  if cr[11] == "BC" then
    local data = string.format("%d %d %d %d %d %s | ", c_id, t.c_d, t.c_w, d, w, amount) .. (cr[15] or "")
    data = data:sub(1, 500)
    con:query(string.format("UPDATE customer SET c_balance = c_balance - %s, c_ytd_payment = c_ytd_payment + %s, "
                            .. "c_payment_cnt = c_payment_cnt + 1, c_data = %s "
                            .. "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d",
                            amount, amount, quote(data), t.c_w, t.c_d, c_id))
  else
    con:query(string.format("UPDATE customer SET c_balance = c_balance - %s, c_ytd_payment = c_ytd_payment + %s, "
                            .. "c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d",
                            amount, amount, t.c_w, t.c_d, c_id))
  end
  con:query(string.format("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, "
                          .. "h_data) VALUES (%d,%d,%d,%d,%d,NOW(),%s,%s)", c_id, t.c_d, t.c_w, d, w, amount,
                          quote(wr[1] .. "    " .. dr[1])))
  con:query("COMMIT")
  return true
end

local function pick_order_status(t)
  t.d = rnd(1, DISTRICTS)
  pick_customer(t)
end

local function tx_order_status(t)
  local w, d = t.w, t.d
  con:query("BEGIN")
  local c_id = t.c_id
  if c_id == nil then
    c_id = tonumber(customer_by_name(w, d, t.c_last, ", c_balance, c_first, c_middle, c_last")[1])
  else
    must_row(string.format("SELECT c_balance, c_first, c_middle, c_last FROM customer "
                           .. "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", w, d, c_id))
  end
  local o = must_row(string.format("SELECT o_id, o_carrier_id, o_entry_d FROM orders "
                                   .. "WHERE o_w_id = %d AND o_d_id = %d AND o_c_id = %d ORDER BY o_id DESC LIMIT 1",
                                   w, d, c_id))
  local rs = con:query(string.format("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d "
                                     .. "FROM order_line WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %s",
                                     w, d, o[1]))
  if rs == nil or rs.nrows == 0 then
    error(string.format("tpcc: order %s of warehouse %d district %d has no lines", o[1], w, d))
  end
  con:query("COMMIT")
  return true
end

local function pick_delivery(t)
  t.carrier = rnd(1, 10)
end

local function tx_delivery(t)
  local w = t.w
  local skipped = 0
  con:query("BEGIN")
  for d = 1, DISTRICTS do
    local no = first_row(string.format("SELECT no_o_id FROM new_orders WHERE no_w_id = %d AND no_d_id = %d "
                                       .. "ORDER BY no_o_id LIMIT 1 FOR UPDATE", w, d))
    if no == nil then
      skipped = skipped + 1
    else
      local o_id = tonumber(no[1])
      con:query(string.format("DELETE FROM new_orders WHERE no_w_id = %d AND no_d_id = %d AND no_o_id = %d",
                              w, d, o_id))
      local o = must_row(string.format("SELECT o_c_id FROM orders WHERE o_w_id = %d AND o_d_id = %d AND o_id = %d "
                                       .. "FOR UPDATE", w, d, o_id))
      con:query(string.format("UPDATE orders SET o_carrier_id = %d WHERE o_w_id = %d AND o_d_id = %d AND o_id = %d",
                              t.carrier, w, d, o_id))
      con:query(string.format("UPDATE order_line SET ol_delivery_d = NOW() "
                              .. "WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %d", w, d, o_id))
      local s = must_row(string.format("SELECT SUM(ol_amount) FROM order_line "
                                       .. "WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %d", w, d, o_id))
      if s[1] == nil then
        error(string.format("tpcc: order %d of warehouse %d district %d has no lines", o_id, w, d))
      end
      con:query(string.format("UPDATE customer SET c_balance = c_balance + %s, c_delivery_cnt = c_delivery_cnt + 1 "
                              .. "WHERE c_w_id = %d AND c_d_id = %d AND c_id = %s", s[1], w, d, o[1]))
    end
  end
  con:query("COMMIT")
  t.skipped = skipped
  return true
end

local function pick_stock_level(t)
  t.d = rnd(1, DISTRICTS)
  t.threshold = rnd(10, 20)
end

local function tx_stock_level(t)
  local w, d = t.w, t.d
  con:query("BEGIN")
  local dr = must_row(string.format("SELECT d_next_o_id FROM district WHERE d_w_id = %d AND d_id = %d", w, d))
  local next_o = tonumber(dr[1])
  must_row(string.format("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock "
                         .. "WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id < %d AND ol_o_id >= %d "
                         .. "AND s_w_id = %d AND s_i_id = ol_i_id AND s_quantity < %d",
                         w, d, next_o, next_o - 20, w, t.threshold))
  con:query("COMMIT")
  return true
end

local KINDS = {
  new_order = {pick_new_order, tx_new_order},
  payment = {pick_payment, tx_payment},
  order_status = {pick_order_status, tx_order_status},
  delivery = {pick_delivery, tx_delivery},
  stock_level = {pick_stock_level, tx_stock_level},
}

local function new_transaction()
  local r = rnd(1, 100)
  local kind
  if r <= 45 then kind = "new_order"
  elseif r <= 88 then kind = "payment"
  elseif r <= 92 then kind = "order_status"
  elseif r <= 96 then kind = "delivery"
  else kind = "stock_level" end
  local t = {kind = kind, w = rnd(1, W)}
  KINDS[kind][1](t)
  return t
end

function thread_init()
  W = sysbench.opt.warehouses
  con = connect()
  counts = {new_order = 0, payment = 0, order_status = 0, delivery = 0, stock_level = 0, rollback = 0, retries = 0,
            no_district = 0}
end

-- 1213 / 1205 (given to --mysql-ignore-errors): roll back what the attempt did; event() then runs `pending` again
function sysbench.hooks.before_restart_event(err)
  counts.retries = counts.retries + 1
  con:query("ROLLBACK")
end

function event()
  local t = pending
  if t == nil then
    t = new_transaction()
    pending = t
  end
  local committed = KINDS[t.kind][2](t)
  pending = nil
  if committed then
    counts[t.kind] = counts[t.kind] + 1
    if t.skipped then counts.no_district = counts.no_district + t.skipped end
  else
    counts.rollback = counts.rollback + 1
  end
end

function thread_done()
  io.stdout:write(string.format("TPCC-THREAD new_order=%d payment=%d order_status=%d delivery=%d stock_level=%d "
                                .. "rollback=%d retries=%d no_district=%d\n", counts.new_order, counts.payment,
                                counts.order_status, counts.delivery, counts.stock_level, counts.rollback,
                                counts.retries, counts.no_district))
  io.stdout:flush()
  con:disconnect()
end

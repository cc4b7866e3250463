-- One call of the seed's NMS (examples/nms.toml): a channel set up on a
-- random VSAT and CU, thirteen status updates, the previous channel cleared.
\set n :n + 1
\set id :client_id * 1000000000 + :n
\set vsat random(1, :lines)
\set cu random(1, :lines)
\set hz 14000000000 + random(0, 500000) * 1000
\set p random(-30, 10)
BEGIN;
INSERT INTO freq_channel (id, vsat_id, cu_id, frequency_hz, bandwidth_hz, power_dbm, state) VALUES (:id, :vsat, :cu, :hz, 64000, :p, 1);
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE vsat SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 1' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE cu SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 2' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE vsat SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 3' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE cu SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 4' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE vsat SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 5' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE cu SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 6' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE vsat SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 7' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE cu SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 8' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE vsat SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 9' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE cu SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 10' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE vsat SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 11' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE cu SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 12' WHERE id = :u;
\set u random(1, :lines)
\set p random(-30, 10)
UPDATE vsat SET status = 2, oper_state = 1, power_dbm = :p, updates = updates + 1, note = 'call 13' WHERE id = :u;
DELETE FROM freq_channel WHERE id = :prev;
COMMIT;
\set prev :id

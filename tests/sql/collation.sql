-- Collations beyond ASCII: utf8mb4_general_ci / utf8mb3_general_ci weigh the upper-case base letter (é = É = e),
-- latin1_swedish_ci sorts Å Ä Ö after Z; comparison, ORDER BY, GROUP BY, DISTINCT, LIKE, unique keys and index
-- lookups must all agree with MariaDB.
CREATE TABLE w (id INT PRIMARY KEY, g VARCHAR(10), m VARCHAR(10) CHARACTER SET utf8mb3, l VARCHAR(10) CHARACTER SET latin1, KEY kg (g), KEY kl (l));
INSERT INTO w VALUES (1, 'e', 'e', 'e'), (2, 'E', 'E', 'E'), (3, 'é', 'é', 'é'), (4, 'É', 'É', 'É'), (5, 'è', 'è', 'è'),
  (6, 'ê', 'ê', 'ê'), (7, 'f', 'f', 'f'), (8, 'z', 'z', 'z'), (9, 'Ä', 'Ä', 'Ä'), (10, 'ä', 'ä', 'ä'), (11, 'a', 'a', 'a'),
  (12, 'Å', 'Å', 'Å'), (13, 'ß', 'ß', 'ß'), (14, 's', 's', 's'), (15, 'ø', 'ø', 'ø'), (16, 'o', 'o', 'o'), (17, 'Ö', 'Ö', 'Ö'),
  (18, 'ÿ', 'ÿ', 'ÿ'), (19, 'y', 'y', 'y'), (20, 'Ü', 'Ü', 'Ü'), (21, 'u', 'u', 'u'), (22, '[', '[', '['), (23, '\\', '\\', '\\'),
  (24, 'Äpfel', 'Äpfel', 'Äpfel'), (25, 'apple', 'apple', 'apple'), (26, 'Éclair', 'Éclair', 'Éclair'), (27, 'eclair ', 'eclair ', 'eclair '),
  (28, 'Й', 'Й', NULL), (29, 'й', 'й', NULL), (30, 'И', 'И', NULL), (31, 'ǅ', 'ǅ', NULL), (32, 'ǆ', 'ǆ', NULL), (33, 'Straße', 'Straße', 'Straße'),
  (34, 'strase', 'strase', 'strase'), (35, 'a\t', 'a\t', 'a\t'), (36, 'a ', 'a ', 'a '), (37, 'œ', 'œ', 'œ'), (38, 'Œ', 'Œ', 'Œ'), (39, 'ﬁ', 'ﬁ', NULL);
SELECT id, g FROM w ORDER BY g, id;
SELECT id, m FROM w ORDER BY m, id;
SELECT id, l FROM w ORDER BY l, id;
SELECT id FROM w ORDER BY g DESC, id;
SELECT GROUP_CONCAT(id ORDER BY id), COUNT(*) FROM w GROUP BY g ORDER BY MIN(id);
SELECT GROUP_CONCAT(id ORDER BY id), COUNT(*) FROM w GROUP BY l ORDER BY MIN(id);
SELECT COUNT(DISTINCT g), COUNT(DISTINCT m), COUNT(DISTINCT l) FROM w;
SELECT COUNT(*) FROM (SELECT DISTINCT g FROM w) d;
SELECT COUNT(*) FROM (SELECT DISTINCT l FROM w) d;
SELECT id FROM w WHERE g = 'E' ORDER BY id;
SELECT id FROM w WHERE g = 'é' ORDER BY id;
SELECT id FROM w FORCE INDEX (kg) WHERE g = 'É' ORDER BY id;
SELECT id FROM w WHERE l = 'É' ORDER BY id;
SELECT id FROM w FORCE INDEX (kl) WHERE l = 'ä' ORDER BY id;
SELECT id FROM w WHERE g BETWEEN 'd' AND 'f' ORDER BY id;
SELECT id FROM w FORCE INDEX (kg) WHERE g > 'Z' ORDER BY id;
SELECT id FROM w FORCE INDEX (kl) WHERE l > 'Z' ORDER BY id;
SELECT id FROM w WHERE g IN ('ä', 'ss', 'Y') ORDER BY id;
SELECT id FROM w WHERE g LIKE 'É%' ORDER BY id;
SELECT id FROM w WHERE g LIKE '_clair' ORDER BY id;
SELECT id FROM w WHERE l LIKE 'é%' ORDER BY id;
SELECT id FROM w WHERE g LIKE 'stra_e' ORDER BY id;
SELECT MIN(g), MAX(g), MIN(l), MAX(l) FROM w WHERE id < 24;
SELECT id FROM w WHERE l IN ('ä', 'Y') ORDER BY id;
SELECT id FROM w WHERE l BETWEEN 'Z' AND 'å' ORDER BY id;
SELECT id FROM w WHERE l = 'ä' COLLATE utf8mb4_general_ci ORDER BY id;
SELECT id FROM w WHERE g = _latin1'é' ORDER BY id;
SELECT id, l = g, l < g FROM w WHERE id IN (9, 12, 17, 22, 23, 33) ORDER BY id;
SELECT id, STRCMP(l, 'ä'), STRCMP('ä', l), FIELD('ä', l, 'x'), FIND_IN_SET('ä', l), NULLIF(l, 'ä'), GREATEST(l, 'ä'), LEAST('ä', l), CASE l WHEN 'ä' THEN 1 ELSE 0 END, LOCATE('ä', l), INSTR(l, 'Ä') FROM w WHERE id IN (9, 10, 12, 22, 23, 24) ORDER BY id;
SELECT id, STRCMP(g, 'e'), FIELD('É', g, 'x'), NULLIF(g, 'E'), CASE g WHEN 'é' THEN 1 ELSE 0 END, LOCATE('E', g) FROM w WHERE id IN (1, 3, 4, 7, 26) ORDER BY id;
SELECT id FROM w WHERE l = '日本';
SELECT id FROM w WHERE '日本' <> l;
SELECT id FROM w WHERE l IN ('a', '日本');
SELECT id FROM w WHERE l IN ('a', 'b', '日本');
SELECT id FROM w WHERE l BETWEEN 'a' AND '日本';
SELECT id FROM w WHERE l LIKE '%日本';
SELECT id FROM w WHERE g = '日本' OR l <=> 'ä€' ORDER BY id;
SELECT a.id, b.id FROM w a JOIN w b ON a.l = b.g WHERE a.id IN (9, 23) ORDER BY a.id, b.id;
SELECT a.id, b.id FROM w a JOIN w b ON a.g = b.l WHERE a.id IN (9, 23) ORDER BY a.id, b.id;
SELECT 'ÀB' LIKE 'àb', 'é' = 'É', 'é' = 'e', 'Äpfel' < 'apple', 'ß' = 's', 'ß' = 'ss', 'a\t' < 'a';
SELECT '😀' = '😁' AS a, '😀' = '�' AS b, '😀' > 'z' AS c, '😀' < 'ￂ' AS d;
SELECT _latin1'Ä' = _latin1'\\', _latin1'Å' > _latin1'z', _latin1'ü' = _latin1'y', _latin1'é' = _latin1'E';
SELECT STRCMP('Éclair', 'eclair'), STRCMP('Й', 'И'), 'Ǆ' = 'ǆ', 'ﬁ' = 'fi', 'œ' = 'oe';
CREATE TABLE u (a VARCHAR(10), UNIQUE KEY ua (a));
INSERT INTO u VALUES ('e');
INSERT INTO u VALUES ('É');
INSERT INTO u VALUES ('ê ');
INSERT INTO u VALUES ('f'), ('Ä'), ('ø');
INSERT INTO u VALUES ('a');
INSERT INTO u VALUES ('o');
SELECT a FROM u ORDER BY a;
CREATE TABLE p (a VARCHAR(10) PRIMARY KEY, b INT);
INSERT INTO p VALUES ('straße', 1);
INSERT INTO p VALUES ('STRASE', 2);
INSERT INTO p VALUES ('strasse', 3);
INSERT INTO p VALUES ('Éa', 4) ON DUPLICATE KEY UPDATE b = 40;
INSERT INTO p VALUES ('ea', 5) ON DUPLICATE KEY UPDATE b = 50;
SELECT a, b FROM p ORDER BY a;
UPDATE p SET b = b + 1 WHERE a = 'EA';
SELECT a, b FROM p WHERE a = 'éA';
CREATE TABLE ul (a VARCHAR(10) CHARACTER SET latin1 PRIMARY KEY);
INSERT INTO ul VALUES ('Ä');
INSERT INTO ul VALUES ('\\');
INSERT INTO ul VALUES ('æ');
INSERT INTO ul VALUES ('ü'), ('Y');
SELECT HEX(a) FROM ul ORDER BY a;
-- collation aggregation: a utf8mb4_general_ci column against a utf8mb4_bin one (both IMPLICIT) compares in _bin
CREATE TABLE cw (id INT PRIMARY KEY, ci VARCHAR(10) COLLATE utf8mb4_general_ci, cs VARCHAR(10) COLLATE utf8mb4_bin, uc VARCHAR(10) COLLATE utf8mb4_unicode_ci, KEY (ci), KEY (cs));
INSERT INTO cw VALUES (1, 'a', 'a', 'a'), (2, 'A', 'A', 'A'), (3, 'é', 'é', 'b'), (4, 'E', 'E', 'B');
SELECT a.id, b.id FROM cw a JOIN cw b ON a.ci = b.cs ORDER BY a.id, b.id;
SELECT a.id, b.id FROM cw a JOIN cw b ON b.cs = a.ci ORDER BY a.id, b.id;
SELECT a.id, b.id FROM cw a IGNORE INDEX (ci) JOIN cw b FORCE INDEX (ci) ON b.ci = a.cs ORDER BY a.id, b.id;
SELECT a.id, b.id FROM cw a JOIN cw b FORCE INDEX (cs) ON b.cs = a.ci COLLATE utf8mb4_general_ci ORDER BY a.id, b.id;
SELECT id FROM cw FORCE INDEX (cs) WHERE cs = 'a' COLLATE utf8mb4_general_ci ORDER BY id;
SELECT id FROM cw FORCE INDEX (cs) WHERE cs IN ('a' COLLATE utf8mb4_general_ci, 'e') ORDER BY id;
SELECT id FROM cw FORCE INDEX (cs) WHERE cs > 'a' COLLATE utf8mb4_general_ci ORDER BY id;
SELECT id FROM cw FORCE INDEX (ci) WHERE ci = 'a' COLLATE utf8mb4_bin ORDER BY id;
SELECT id FROM cw FORCE INDEX (ci) WHERE ci < 'a' COLLATE utf8mb4_bin ORDER BY id;
SELECT COUNT(*) FROM cw a JOIN cw b ON a.ci = b.uc;
SELECT ci FROM cw WHERE ci IN (cs, uc);
SELECT CONCAT(ci, uc) = 'aa' FROM cw;
SELECT COLLATION(CONCAT(ci, uc)), COERCIBILITY(CONCAT(ci, uc)) FROM cw WHERE id = 1;
SELECT COLLATION(CONCAT(ci, cs)), COERCIBILITY(CONCAT(ci, cs)), COLLATION(CONCAT(ci, 'x')), COERCIBILITY(USER()) FROM cw WHERE id = 1;
SELECT CONCAT(ci, cs) AS x, COUNT(*) FROM cw GROUP BY x ORDER BY x;
SELECT DISTINCT CONCAT(ci, cs) AS x FROM cw ORDER BY x;
SELECT MIN(CONCAT(ci, cs)), MAX(CONCAT(cs, ci)) FROM cw;
SELECT id FROM cw ORDER BY CONCAT(ci, cs), id;
SELECT ci COLLATE latin1_bin FROM cw;
SELECT 'a' COLLATE utf8mb4_bin = 'A' COLLATE utf8mb4_general_ci;
-- The UCA collations (unicode_ci = UCA 4.0.0, unicode_520_ci = 5.2.0, uca1400_ai_ci = 14.0.0): expansions (ß = ss,
-- æ = ae), ignorables (U+0000, soft hyphen), every space-weighing character padded (NBSP), contractions in 14.0
-- (И + combining breve = Й), supplementary characters (FFFD in 4.0.0, implicit weights after)
CREATE TABLE uw (id INT PRIMARY KEY, a VARCHAR(12) COLLATE utf8mb4_unicode_ci, b VARCHAR(12) COLLATE utf8mb4_unicode_520_ci,
  c VARCHAR(12) COLLATE utf8mb4_uca1400_ai_ci, d VARCHAR(12) CHARACTER SET utf8mb3 COLLATE utf8mb3_unicode_ci,
  KEY ka (a), KEY kb (b), KEY kc (c), UNIQUE KEY ud (d, id));
INSERT INTO uw SELECT id, g, g, g, m FROM w;
INSERT INTO uw VALUES (101, 'ss', 'ss', 'ss', 'ss'), (102, 'Strasse', 'Strasse', 'Strasse', 'Strasse'), (103, 'ae', 'ae', 'ae', 'ae'),
  (104, 'æ', 'æ', 'æ', 'æ'), (105, CONCAT('a', CHAR(0xC2A0 USING utf8mb4)), CONCAT('a', CHAR(0xC2A0 USING utf8mb4)), CONCAT('a', CHAR(0xC2A0 USING utf8mb4)), 'a'),
  (106, CONCAT('co', CHAR(0xC2AD USING utf8mb4), 'op'), CONCAT('co', CHAR(0xC2AD USING utf8mb4), 'op'), CONCAT('co', CHAR(0xC2AD USING utf8mb4), 'op'), 'coop'),
  (107, 'coop', 'coop', 'coop', 'coop'), (108, 'co-op', 'co-op', 'co-op', 'co-op'), (109, _utf8mb4 0xD098CC86, _utf8mb4 0xD098CC86, _utf8mb4 0xD098CC86, 'x'),
  (110, '😀', '😀', '😀', NULL), (111, '😁', '😁', '😁', NULL), (112, '中文', '中文', '中文', '中文'), (113, 'ǲ', 'ǲ', 'ǲ', 'ǲ'), (114, 'dz', 'dz', 'dz', 'dz'),
  (115, 'l·l', 'l·l', 'l·l', 'l·l'), (116, 'll', 'll', 'll', 'll'), (117, 'a\0b', 'a\0b', 'a\0b', 'a\0b'), (118, '½', '½', '½', '½');
SELECT id, a FROM uw ORDER BY a, id;
SELECT id, b FROM uw ORDER BY b, id;
SELECT id, c FROM uw ORDER BY c, id;
SELECT id, d FROM uw ORDER BY d, id;
SELECT id FROM uw FORCE INDEX (ka) ORDER BY a, id;
SELECT id FROM uw FORCE INDEX (kc) ORDER BY c DESC, id;
SELECT GROUP_CONCAT(id ORDER BY id), COUNT(*) FROM uw GROUP BY a ORDER BY MIN(id);
SELECT GROUP_CONCAT(id ORDER BY id), COUNT(*) FROM uw GROUP BY b ORDER BY MIN(id);
SELECT GROUP_CONCAT(id ORDER BY id), COUNT(*) FROM uw GROUP BY c ORDER BY MIN(id);
SELECT COUNT(DISTINCT a), COUNT(DISTINCT b), COUNT(DISTINCT c), COUNT(DISTINCT d) FROM uw;
SELECT id FROM uw WHERE a = 'SS' ORDER BY id;
SELECT id FROM uw FORCE INDEX (kb) WHERE b = 'strasse' ORDER BY id;
SELECT id FROM uw FORCE INDEX (kc) WHERE c = _utf8mb4 0xD099 ORDER BY id;
SELECT id FROM uw WHERE b = 'a' ORDER BY id;
SELECT id FROM uw WHERE a = 'ab' ORDER BY id;
SELECT id FROM uw FORCE INDEX (ka) WHERE a BETWEEN 'd' AND 'f' ORDER BY id;
SELECT id FROM uw WHERE a LIKE 's%' ORDER BY id;
SELECT id FROM uw WHERE b LIKE '_' ORDER BY id;
SELECT id FROM uw WHERE c LIKE 'co_op' ORDER BY id;
SELECT id FROM uw WHERE a LIKE '%ß%' ORDER BY id;
SELECT id FROM uw WHERE b IN ('ä', 'ss', 'Y') ORDER BY id;
SELECT 'ß' = 'ss' COLLATE utf8mb4_unicode_ci, 'ß' LIKE 'ss' COLLATE utf8mb4_unicode_ci, 'æ' = 'ae' COLLATE utf8mb4_unicode_520_ci, 'a\t' < 'a' COLLATE utf8mb4_unicode_ci;
SELECT STRCMP('l·l' COLLATE utf8mb4_uca1400_ai_ci, 'lm'), STRCMP('l·l' COLLATE utf8mb4_unicode_ci, 'lm'), STRCMP('😀' COLLATE utf8mb4_unicode_ci, '😁') AS emoji;
SELECT _utf8mb4 0xD098CC86 = _utf8mb4 0xD099 COLLATE utf8mb4_uca1400_ai_ci, _utf8mb4 0xD098CC86 = _utf8mb4 0xD099 COLLATE utf8mb4_unicode_520_ci;
SELECT COLLATION(a), COLLATION(b), COLLATION(c), COLLATION(d), COERCIBILITY(_utf8mb4 'x' COLLATE utf8mb4_unicode_ci) FROM uw WHERE id = 1;
SELECT MIN(a), MAX(a), MIN(c), MAX(c) FROM uw WHERE id NOT IN (110, 111); -- (the two emoji tie under unicode_ci: which one MAX gives is open)
INSERT INTO uw (id, d) VALUES (200, 'SS');
SELECT id FROM uw WHERE d = 'ß' ORDER BY id;
CREATE TABLE uq (k VARCHAR(10) COLLATE utf8mb4_unicode_520_ci PRIMARY KEY);
INSERT INTO uq VALUES ('ss');
INSERT INTO uq VALUES ('ß');
INSERT INTO uq VALUES ('SS ');
INSERT INTO uq VALUES ('s');
SELECT k FROM uq ORDER BY k;
SHOW COLLATION WHERE Collation IN ('utf8mb4_unicode_ci', 'utf8mb4_unicode_520_ci', 'utf8mb3_unicode_ci', 'utf8mb3_unicode_520_ci');
SHOW CREATE TABLE uw;
DROP TABLE uw, uq;
SELECT * FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE FULL_COLLATION_NAME IN ('utf8mb4_unicode_520_ci', 'utf8mb4_uca1400_ai_ci', 'utf8mb3_uca1400_ai_ci', 'latin1_swedish_ci', 'utf8mb4_general_ci', 'binary') ORDER BY ID;
SHOW COLLATION LIKE 'uca1400_ai_ci';
SELECT * FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN ('uca1400_ai_ci', 'utf8mb4_unicode_520_ci');
SHOW COLLATION LIKE '%uca1400_ai_ci';

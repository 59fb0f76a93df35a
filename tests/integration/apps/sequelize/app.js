// Sequelize 6 + mysql2 against one server: models with associations (belongsTo with ON DELETE CASCADE,
// belongsToMany through a join table), a JSON column, sync, what queryInterface reads back about the schema
// (describeTable, showIndex, foreign keys), CRUD with includes, managed and unmanaged transactions, upsert,
// bulkCreate with updateOnDuplicate, aggregates, cascades, raw queries.  Prints one JSON document of what each
// step read back (or the error it met); tests/integration/test_app_sequelize.py runs it against strata and
// MariaDB and compares.
//
// usage: node app.js HOST PORT USER PASSWORD DB
'use strict';
const { Sequelize, DataTypes, Op } = require('sequelize');

const [host, port, user, password, db] = process.argv.slice(2);
const sql = [];
const sequelize = new Sequelize(db, user, password, {
  host, port: Number(port), dialect: 'mysql', logging: (q) => sql.push(q),
  define: { charset: 'utf8mb4', collate: 'utf8mb4_unicode_ci' }, pool: { max: 2 },
});

const User = sequelize.define('User', {
  name: { type: DataTypes.STRING(50), allowNull: false, unique: true },
  age: { type: DataTypes.INTEGER, validate: { min: 0 } },
  score: { type: DataTypes.DECIMAL(10, 2), defaultValue: 0 },
  prefs: { type: DataTypes.JSON },
  joined: { type: DataTypes.DATE, defaultValue: DataTypes.NOW },
});
const Post = sequelize.define('Post', {
  title: { type: DataTypes.STRING(200), allowNull: false },
  body: DataTypes.TEXT,
  status: { type: DataTypes.ENUM('draft', 'published'), defaultValue: 'draft' },
}, { indexes: [{ fields: ['title', 'status'] }] });
const Tag = sequelize.define('Tag', { label: { type: DataTypes.STRING(30), unique: true } }, { timestamps: false });
User.hasMany(Post, { foreignKey: { name: 'userId', allowNull: false }, onDelete: 'CASCADE' });
Post.belongsTo(User, { foreignKey: 'userId' });
Post.belongsToMany(Tag, { through: 'PostTags' });
Tag.belongsToMany(Post, { through: 'PostTags' });

const out = {};
async function step(name, fn) {
  try {
    out[name] = await fn();
  } catch (e) {
    out[name] = { error: e.name, code: e.parent ? e.parent.errno : undefined, message: e.parent ? e.parent.sqlMessage : e.message };
  }
}
const plain = (rows) => rows.map((r) => (r.get ? r.get({ plain: true }) : r));
const strip = (o) => JSON.parse(JSON.stringify(o, (k, v) => (['createdAt', 'updatedAt', 'joined'].includes(k) ? undefined : v)));

(async () => {
  await step('authenticate', async () => { await sequelize.authenticate(); return (await sequelize.query('SELECT VERSION() LIKE \'10.11%\' AS v', { plain: true })).v; });
  await step('sync', async () => { await sequelize.sync({ force: true }); return (await sequelize.getQueryInterface().showAllTables()).sort(); });
  const qi = sequelize.getQueryInterface();
  await step('describe_users', async () => {
    const d = await qi.describeTable('Users');
    return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, [v.type, v.allowNull, v.primaryKey, v.autoIncrement]]));
  });
  await step('indexes_posts', async () => (await qi.showIndex('Posts')).map((i) => [i.name, i.unique, i.fields.map((f) => f.attribute)]).sort());
  await step('fks_posts', async () => (await qi.getForeignKeyReferencesForTable('Posts')).map((f) => [f.columnName, f.referencedTableName, f.referencedColumnName]));
  await step('fks_posttags', async () => (await qi.getForeignKeyReferencesForTable('PostTags')).map((f) => [f.columnName, f.referencedTableName]).sort());

  await step('create', async () => {
    const ann = await User.create({ name: 'ann', age: 30, prefs: { theme: 'dark', langs: ['en', 'fr'] } });
    const bob = await User.create({ name: 'bob', age: 41, score: 12.5, prefs: { theme: 'light' } });
    const p1 = await Post.create({ title: 'Hello', body: 'x', userId: ann.id, status: 'published' });
    const p2 = await Post.create({ title: 'Über', body: 'ü', userId: ann.id });
    const p3 = await Post.create({ title: 'Third', userId: bob.id, status: 'published' });
    const [t1, t2] = await Tag.bulkCreate([{ label: 'sql' }, { label: 'db' }]);
    await p1.addTags([t1, t2]);
    await p3.addTag(t1);
    return [ann.id, bob.id, p1.id, p2.id, p3.id, t1.id, t2.id];
  });
  await step('unique_violation', async () => { await User.create({ name: 'ann' }); return 'created'; });
  await step('fk_violation', async () => { await Post.create({ title: 'orphan', userId: 999 }); return 'created'; });
  await step('include', async () => strip(plain(await User.findAll({
    include: [{ model: Post, include: [Tag] }], order: [['name', 'ASC'], [Post, 'id', 'ASC'], [Post, Tag, 'label', 'ASC']],
  }))));
  await step('json_read', async () => (await User.findAll({ order: [['id', 'ASC']] })).map((u) => u.prefs));
  await step('json_where', async () => (await User.findAll({ where: { 'prefs.theme': 'dark' } })).map((u) => u.name));
  await step('json_fn', async () => sequelize.query("SELECT name, JSON_UNQUOTE(JSON_EXTRACT(prefs, '$.langs[1]')) AS l FROM Users ORDER BY id", { type: Sequelize.QueryTypes.SELECT }));
  await step('where_ops', async () => (await Post.findAll({
    where: { [Op.or]: [{ title: { [Op.like]: 'H%' } }, { status: 'draft' }], userId: { [Op.in]: [1, 2] } }, order: [['id', 'ASC']],
  })).map((p) => p.title));
  await step('aggregates', async () => plain(await Post.findAll({
    attributes: ['userId', [sequelize.fn('COUNT', sequelize.col('id')), 'n']], group: ['userId'], order: [['userId', 'ASC']], raw: true,
  })));
  await step('count_paging', async () => {
    const r = await Post.findAndCountAll({ limit: 2, offset: 1, order: [['id', 'ASC']] });
    return [r.count, r.rows.map((p) => p.title)];
  });
  await step('managed_tx_rollback', async () => {
    try {
      await sequelize.transaction(async (t) => {
        await User.create({ name: 'carl', age: 5 }, { transaction: t });
        throw new Error('abort');
      });
    } catch (e) { /* rolled back */ }
    return User.count({ where: { name: 'carl' } });
  });
  await step('managed_tx_commit', async () => {
    await sequelize.transaction(async (t) => {
      const d = await User.create({ name: 'dora', age: 22 }, { transaction: t });
      await Post.create({ title: 'by dora', userId: d.id }, { transaction: t });
    });
    return [await User.count(), await Post.count()];
  });
  await step('unmanaged_tx', async () => {
    const t = await sequelize.transaction({ isolationLevel: Sequelize.Transaction.ISOLATION_LEVELS.READ_COMMITTED });
    await User.update({ age: 99 }, { where: { name: 'bob' }, transaction: t });
    await t.rollback();
    return (await User.findOne({ where: { name: 'bob' } })).age;
  });
  await step('upsert', async () => {
    await User.upsert({ name: 'ann', age: 31, prefs: { theme: 'blue' } });
    await User.upsert({ name: 'erin', age: 7 });
    return (await User.findAll({ order: [['name', 'ASC']] })).map((u) => [u.name, u.age]);
  });
  await step('bulk_update_on_dup', async () => {
    await Tag.bulkCreate([{ id: 1, label: 'SQL' }, { id: 9, label: 'new' }], { updateOnDuplicate: ['label'] });
    return (await Tag.findAll({ order: [['id', 'ASC']] })).map((t) => [t.id, t.label]);
  });
  await step('increment', async () => {
    await User.increment({ score: 2.25 }, { where: { name: 'bob' } });
    return (await User.findOne({ where: { name: 'bob' } })).score;
  });
  await step('cascade_delete', async () => {
    await User.destroy({ where: { name: 'ann' } });
    return [await Post.count(), (await sequelize.query('SELECT COUNT(*) AS n FROM PostTags', { plain: true })).n];
  });
  await step('raw', async () => sequelize.query('SELECT label FROM Tags WHERE id IN (:ids) ORDER BY label', { replacements: { ids: [1, 2, 9] }, type: Sequelize.QueryTypes.SELECT }));
  await step('drop', async () => { await sequelize.drop(); return (await qi.showAllTables()).length; });
  await sequelize.close();
  out.nqueries = sql.length;
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
})().catch((e) => { console.error(e); process.exit(1); });

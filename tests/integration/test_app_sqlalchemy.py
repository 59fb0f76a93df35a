"""SQLAlchemy 1.4 (Debian python3-sqlalchemy) against strata and the MariaDB reference.

Each test is one step an application takes: create_all of a schema with foreign keys, a CHECK constraint and
indexes, reflection of that schema (what Alembic autogenerate reads), and an ORM session with relationships.
Both Debian drivers are used: mysqldb (libmariadb) and pymysql. docs/applications.md says what is covered.
"""
import pytest

sa = pytest.importorskip('sqlalchemy')
orm = pytest.importorskip('sqlalchemy.orm')

DRIVERS = ['mysqldb', 'pymysql']


def engine_for(server, db, driver):
    url = 'mysql+%s://%s:%s@%s:%d/%s?charset=utf8mb4' % (driver, server.user, server.password, server.host,
                                                         server.port, db)
    return sa.create_engine(url, future=True)


@pytest.fixture
def appdb(target, unique):
    db = unique('sa')
    c = target.connect()
    c.cursor().execute('CREATE DATABASE %s' % db)
    yield db
    c.cursor().execute('DROP DATABASE %s' % db)
    c.close()


def schema():
    md = sa.MetaData()
    users = sa.Table(
        'users', md,
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(50), nullable=False, unique=True),
        sa.Column('age', sa.Integer, nullable=True),
        sa.Column('created', sa.DateTime, server_default=sa.text('CURRENT_TIMESTAMP')),
        sa.CheckConstraint('age >= 0', name='age_nonneg'),
        mysql_engine='InnoDB')
    sa.Table(
        'posts', md,
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('user_id', sa.Integer, sa.ForeignKey('users.id', ondelete='CASCADE'), nullable=False),
        sa.Column('title', sa.String(200), nullable=False),
        sa.Column('body', sa.Text),
        sa.Column('score', sa.Numeric(10, 2), server_default='0'),
        sa.Index('ix_posts_title_score', 'title', 'score'),
        mysql_engine='InnoDB')
    return md, users


@pytest.mark.parametrize('driver', DRIVERS)
def test_create_all_and_core(target, appdb, driver):
    md, users = schema()
    eng = engine_for(target, appdb, driver)
    md.create_all(eng)
    with eng.begin() as conn:
        conn.execute(users.insert(), [{'name': 'ann', 'age': 30}, {'name': 'bob', 'age': 41}])
        rows = conn.execute(sa.select(users.c.name, users.c.age).order_by(users.c.name)).all()
        assert [tuple(r) for r in rows] == [('ann', 30), ('bob', 41)]
    assert sa.inspect(eng).has_table('posts')
    md.drop_all(eng)
    assert not sa.inspect(eng).has_table('posts')
    eng.dispose()


@pytest.mark.parametrize('driver', DRIVERS)
def test_reflection(target, appdb, driver):
    md, _ = schema()
    eng = engine_for(target, appdb, driver)
    md.create_all(eng)
    insp = sa.inspect(eng)
    assert sorted(insp.get_table_names()) == ['posts', 'users']
    cols = {c['name']: c for c in insp.get_columns('posts')}
    assert list(cols) == ['id', 'user_id', 'title', 'body', 'score']
    assert cols['title']['nullable'] is False and cols['body']['nullable'] is True
    assert str(cols['score']['type']) == 'DECIMAL(10, 2)'
    assert insp.get_pk_constraint('posts')['constrained_columns'] == ['id']
    idx = {i['name']: i for i in insp.get_indexes('posts')}
    assert idx['ix_posts_title_score']['column_names'] == ['title', 'score']
    uniq = insp.get_unique_constraints('users')
    assert [u['column_names'] for u in uniq] == [['name']]
    # Reflect everything into a new MetaData, as autoload does.
    md2 = sa.MetaData()
    md2.reflect(eng)
    assert set(md2.tables) == {'users', 'posts'}
    eng.dispose()


@pytest.mark.parametrize('driver', DRIVERS)
def test_reflection_constraints(target, appdb, driver):
    md, _ = schema()
    eng = engine_for(target, appdb, driver)
    md.create_all(eng)
    insp = sa.inspect(eng)
    fks = insp.get_foreign_keys('posts')
    assert [(f['constrained_columns'], f['referred_table'], f['referred_columns']) for f in fks] == \
        [(['user_id'], 'users', ['id'])]
    assert fks[0]['options'].get('ondelete') == 'CASCADE'
    checks = insp.get_check_constraints('users')
    assert [c['name'] for c in checks] == ['age_nonneg']
    eng.dispose()


@pytest.mark.parametrize('driver', DRIVERS)
def test_orm_session(target, appdb, driver):
    Base = orm.declarative_base()

    class User(Base):
        __tablename__ = 'users'
        id = sa.Column(sa.Integer, primary_key=True)
        name = sa.Column(sa.String(50), nullable=False)
        posts = orm.relationship('Post', back_populates='user', cascade='all, delete-orphan')

    class Post(Base):
        __tablename__ = 'posts'
        id = sa.Column(sa.Integer, primary_key=True)
        user_id = sa.Column(sa.Integer, sa.ForeignKey('users.id'), nullable=False)
        title = sa.Column(sa.String(200))
        user = orm.relationship('User', back_populates='posts')

    eng = engine_for(target, appdb, driver)
    Base.metadata.create_all(eng)
    with orm.Session(eng) as s:
        u = User(name='ann', posts=[Post(title='one'), Post(title='two')])
        s.add(u)
        s.add(User(name='bob'))
        s.commit()
        uid = u.id
    with orm.Session(eng) as s:
        got = s.execute(sa.select(User).where(User.name == 'ann')).scalar_one()
        assert sorted(p.title for p in got.posts) == ['one', 'two']
        counts = s.execute(sa.select(User.name, sa.func.count(Post.id)).outerjoin(Post)
                           .group_by(User.name).order_by(User.name)).all()
        assert [tuple(r) for r in counts] == [('ann', 2), ('bob', 0)]
        # A rolled-back change is not seen.
        got.name = 'changed'
        s.flush()
        s.rollback()
        assert s.get(User, uid).name == 'ann'
        # Subquery in WHERE, and UPDATE/DELETE by criteria.
        sub = sa.select(Post.user_id).where(Post.title == 'two').scalar_subquery()
        assert s.execute(sa.select(User.name).where(User.id == sub)).scalar_one() == 'ann'
        s.execute(sa.update(Post).where(Post.title == 'one').values(title='uno'))
        s.execute(sa.delete(Post).where(Post.title == 'two'))
        s.commit()
        assert [p.title for p in s.get(User, uid).posts] == ['uno']
        s.delete(s.get(User, uid))
        s.commit()
        assert s.execute(sa.select(sa.func.count()).select_from(Post)).scalar_one() == 0
    eng.dispose()


@pytest.mark.parametrize('driver', DRIVERS)
def test_json_type(target, appdb, driver):
    """sa.JSON: the column made by create_all, values round-tripped as JSON, and the element comparisons it
    renders (JSON_EXTRACT, JSON_UNQUOTE, casts of extracted values), reflection of the column's type."""
    md = sa.MetaData()
    events = sa.Table('events', md, sa.Column('id', sa.Integer, primary_key=True), sa.Column('data', sa.JSON),
                      mysql_engine='InnoDB')
    eng = engine_for(target, appdb, driver)
    md.create_all(eng)
    with eng.begin() as conn:
        conn.execute(events.insert(), [
            {'id': 1, 'data': {'kind': 'click', 'n': 3, 'tags': ['a', 'b'], 'ok': True, 'nested': {'x': 'é'}}},
            {'id': 2, 'data': {'kind': 'view', 'n': 1, 'tags': []}},
            {'id': 3, 'data': None},
        ])
        d = events.c.data
        assert conn.execute(sa.select(d).where(events.c.id == 1)).scalar_one() == {
            'kind': 'click', 'n': 3, 'tags': ['a', 'b'], 'ok': True, 'nested': {'x': 'é'}}
        assert conn.execute(sa.select(events.c.id).where(d['kind'].as_string() == 'click')).scalars().all() == [1]
        assert conn.execute(sa.select(events.c.id).where(d['n'].as_integer() > 2)).scalars().all() == [1]
        assert conn.execute(sa.select(d['tags'][0]).where(events.c.id == 1)).scalar_one() == 'a'
        assert conn.execute(sa.select(d[('nested', 'x')].as_string()).where(events.c.id == 1)).scalar_one() == 'é'
        assert conn.execute(sa.select(d['ok'].as_boolean()).where(events.c.id == 1)).scalar_one() is True
        got = conn.execute(sa.select(events.c.id, sa.func.json_length(d, '$.tags')).order_by(events.c.id)).all()
        assert [tuple(r) for r in got] == [(1, 2), (2, 0), (3, None)]
    col = {c['name']: c for c in sa.inspect(eng).get_columns('events')}['data']
    # MariaDB's JSON is LONGTEXT utf8mb4_bin, which is what reflection sees on both servers
    assert type(col['type']).__name__ == 'LONGTEXT' and col['type'].collation == 'utf8mb4_bin', col

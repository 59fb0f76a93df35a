"""Django 3.2 (Debian python3-django) against strata and the MariaDB reference.

A throwaway project is written to a scratch directory: the contrib apps auth, contenttypes, sessions and
admin, plus one app whose models use ForeignKey, ManyToManyField, JSONField and a CheckConstraint. Each step
runs `manage.py` in a subprocess (Django's settings are process-global) against a fresh database of the
session server: migrate, ORM queries, dumpdata/loaddata and inspectdb. docs/applications.md lists what runs.
"""
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip('django')

PY = '/usr/bin/python3'

SETTINGS = '''
SECRET_KEY = 'test'
DEBUG = False
USE_TZ = True
INSTALLED_APPS = ['django.contrib.auth', 'django.contrib.contenttypes', 'django.contrib.sessions',
                  'django.contrib.admin', 'django.contrib.messages', 'shop']
DATABASES = {'default': {'ENGINE': 'django.db.backends.mysql', 'NAME': %(db)r, 'USER': %(user)r,
                         'PASSWORD': %(password)r, 'HOST': %(host)r, 'PORT': %(port)d,
                         'OPTIONS': {'charset': 'utf8mb4'}}}
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
MIDDLEWARE = ['django.contrib.sessions.middleware.SessionMiddleware',
              'django.contrib.auth.middleware.AuthenticationMiddleware',
              'django.contrib.messages.middleware.MessageMiddleware']
TEMPLATES = [{'BACKEND': 'django.template.backends.django.DjangoTemplates', 'APP_DIRS': True,
              'OPTIONS': {'context_processors': ['django.contrib.auth.context_processors.auth',
                                                 'django.contrib.messages.context_processors.messages']}}]
'''

MODELS = '''
from django.db import models


class Tag(models.Model):
    name = models.CharField(max_length=40, unique=True)


class Product(models.Model):
    name = models.CharField(max_length=100, db_index=True)
    price = models.DecimalField(max_digits=8, decimal_places=2)
    stock = models.IntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    tags = models.ManyToManyField(Tag, related_name='products')

    class Meta:
        constraints = [models.CheckConstraint(check=models.Q(stock__gte=0), name='stock_nonneg')]


class Order(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name='orders')
    quantity = models.PositiveIntegerField()
    note = models.TextField(blank=True)
'''

# Django takes RETURNING from MariaDB >= 10.5; this makes it use LAST_INSERT_ID() as it does for MySQL, so the
# LAST_INSERT_ID() path stays tested beside RETURNING.
NO_RETURNING = '''
from django.db.backends.mysql import features as _features
_features.DatabaseFeatures.can_return_columns_from_insert = False
_features.DatabaseFeatures.can_return_rows_from_bulk_insert = False
'''

JSON_MODEL = '''

class Event(models.Model):
    data = models.JSONField(default=dict)
'''

QUERIES = '''
import django
django.setup()
from decimal import Decimal
from django.contrib.auth.models import User, Group, Permission
from django.db import transaction
from django.db.models import Count, F, Sum, Q, Subquery, OuterRef
from shop.models import Tag, Product, Order

u = User.objects.create_user('ann', 'ann@example.com', 'pw')
assert User.objects.get(username='ann').check_password('pw')
g = Group.objects.create(name='staff')
g.permissions.add(*Permission.objects.filter(codename__startswith='view_'))
u.groups.add(g)
assert u.has_perm('shop.view_product')

red, blue = Tag.objects.create(name='red'), Tag.objects.create(name='blue')
p1 = Product.objects.create(name='chair', price=Decimal('19.99'), stock=5)
p2 = Product.objects.create(name='table', price=Decimal('120.00'), stock=2)
p1.tags.add(red, blue)
p2.tags.add(blue)
Order.objects.create(product=p1, quantity=2)
Order.objects.create(product=p1, quantity=1)
Order.objects.create(product=p2, quantity=1)

assert [t.name for t in p1.tags.order_by('name')] == ['blue', 'red']
assert list(Product.objects.filter(tags__name='blue').order_by('name').values_list('name', flat=True)) == \\
    ['chair', 'table']
agg = {p.name: (p.n, p.q) for p in Product.objects.annotate(n=Count('orders'), q=Sum('orders__quantity'))}
assert agg == {'chair': (2, 3), 'table': (1, 1)}, agg
Product.objects.filter(pk=p1.pk).update(stock=F('stock') - 1)
assert Product.objects.get(pk=p1.pk).stock == 4
last = Order.objects.filter(product=OuterRef('pk')).order_by('-quantity').values('quantity')[:1]
assert dict(Product.objects.annotate(top=Subquery(last)).values_list('name', 'top')) == \\
    {'chair': 2, 'table': 1}
try:
    with transaction.atomic():
        Product.objects.create(name='lamp', price=Decimal('5'), stock=1)
        raise RuntimeError('roll back')
except RuntimeError:
    pass
assert not Product.objects.filter(name='lamp').exists()
assert Product.objects.filter(Q(name__icontains='CHA') | Q(price__gt=100)).count() == 2
p2.delete()
assert Order.objects.count() == 2
print('ok')
'''

CHECK = '''
import django
django.setup()
from decimal import Decimal
from django.db import IntegrityError, transaction
from shop.models import Product
try:
    with transaction.atomic():
        Product.objects.create(name='bad', price=Decimal('1'), stock=-1)
except IntegrityError as e:
    print('refused', e.args[0])
else:
    print('accepted')
'''

JSON_QUERIES = '''
import django
django.setup()
from shop.models import Event
Event.objects.create(data={'kind': 'click', 'n': 3, 'tags': ['a', 'b']})
Event.objects.create(data={'kind': 'view', 'n': 1})
assert Event.objects.filter(data__kind='click').count() == 1
assert Event.objects.filter(data__n__gt=2).count() == 1
assert Event.objects.filter(data__has_key='tags').count() == 1
assert Event.objects.get(data__kind='view').data == {'kind': 'view', 'n': 1}
print('ok')
'''


class Project:
    """A Django project in a scratch directory, bound to one database of one server."""

    def __init__(self, base, server, db, json_model=False, returning=True):
        self.base = base
        self.server = server
        os.makedirs(os.path.join(base, 'shop', 'migrations'))
        with open(os.path.join(base, 'settings.py'), 'w') as f:
            f.write(SETTINGS % dict(db=db, user=server.user, password=server.password, host=server.host,
                                    port=server.port))
            if not returning:
                f.write(NO_RETURNING)
        for name in ('shop/__init__.py', 'shop/migrations/__init__.py'):
            open(os.path.join(base, name), 'w').close()
        with open(os.path.join(base, 'shop', 'models.py'), 'w') as f:
            f.write(MODELS + (JSON_MODEL if json_model else ''))

    def run(self, *args, script=None, check=True):
        env = dict(os.environ, DJANGO_SETTINGS_MODULE='settings', PYTHONPATH=self.base)
        if script is not None:
            cmd = [PY, '-c', textwrap.dedent(script)]
        else:
            cmd = [PY, '-m', 'django'] + list(args)
        r = subprocess.run(cmd, cwd=self.base, env=env, capture_output=True, text=True, timeout=120)
        if check and r.returncode != 0:
            pytest.fail('%s failed (%d):\n%s\n%s' % (' '.join(args) or 'script', r.returncode, r.stdout[-3000:],
                                                     r.stderr[-3000:]))
        return r


@pytest.fixture
def project(target, unique, tmp_path):
    db = unique('dj')
    c = target.connect()
    c.cursor().execute('CREATE DATABASE %s CHARACTER SET utf8mb4' % db)
    yield lambda **kw: Project(str(tmp_path / 'proj'), target, db, **kw)
    c.cursor().execute('DROP DATABASE %s' % db)
    c.close()


def migrated(project, **kw):
    p = project(**kw)
    p.run('makemigrations', 'shop')
    p.run('migrate', '--noinput')
    return p


def test_migrate_and_orm(target, project):
    p = migrated(project)
    r = p.run('showmigrations', '--plan')
    assert '[ ]' not in r.stdout and '[X]  admin.0001_initial' in r.stdout
    assert p.run(script=QUERIES).stdout.strip() == 'ok'
    # Migrating back to zero and forward again drops and recreates every table.
    p.run('migrate', 'shop', 'zero', '--noinput')
    p.run('migrate', '--noinput')


def test_dumpdata_loaddata(target, project, tmp_path):
    p = migrated(project)
    p.run(script=QUERIES)
    dump = p.run('dumpdata', 'shop', '--indent', '1').stdout
    assert '"name": "chair"' in dump and '"tags": [' in dump
    path = str(tmp_path / 'dump.json')
    with open(path, 'w') as f:
        f.write(dump)
    p.run('flush', '--noinput')
    assert p.run('dumpdata', 'shop').stdout.strip() == '[]'
    r = p.run('loaddata', path)
    assert 'Installed' in r.stdout, r.stdout
    assert p.run('dumpdata', 'shop', '--indent', '1').stdout == dump


def test_inspectdb(target, project):
    p = migrated(project)
    out = p.run('inspectdb', 'shop_product', 'shop_order', 'shop_product_tags').stdout
    assert 'class ShopProduct(models.Model):' in out
    assert 'name = models.CharField(max_length=100)' in out
    assert 'price = models.DecimalField(max_digits=8, decimal_places=2)' in out
    assert "db_table = 'shop_order'" in out


def test_inspectdb_foreign_keys(target, project):
    p = migrated(project)
    out = p.run('inspectdb', 'shop_order').stdout
    assert "product = models.ForeignKey('ShopProduct', models.DO_NOTHING)" in out, out


def test_check_constraint_enforced(target, project):
    p = migrated(project)
    assert p.run(script=CHECK).stdout.split() == ['refused', '4025']


def test_json_field(target, project):
    p = migrated(project, json_model=True)
    assert p.run(script=JSON_QUERIES).stdout.strip() == 'ok'


def test_json_field_without_returning(target, project):
    """JSONField's lookups (key transforms, has_key, comparisons) on the JSON functions, RETURNING aside."""
    p = migrated(project, json_model=True, returning=False)
    assert p.run(script=JSON_QUERIES).stdout.strip() == 'ok'


def test_migrate_and_orm_without_returning(target, project, tmp_path):
    """The whole path of the tests above but RETURNING: migrate, ORM, dumpdata/loaddata, inspectdb."""
    p = migrated(project, returning=False)
    assert p.run(script=QUERIES).stdout.strip() == 'ok'
    dump = p.run('dumpdata', 'shop', '--indent', '1').stdout
    path = str(tmp_path / 'dump.json')
    with open(path, 'w') as f:
        f.write(dump)
    p.run('flush', '--noinput')
    p.run('loaddata', path)
    assert p.run('dumpdata', 'shop', '--indent', '1').stdout == dump
    out = p.run('inspectdb', 'shop_product').stdout
    assert 'price = models.DecimalField(max_digits=8, decimal_places=2)' in out
    p.run('migrate', 'shop', 'zero', '--noinput')

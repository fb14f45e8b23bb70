# SQLAlchemy's MySQL reflection and pandas on glint, or on MariaDB with the
# same tables (e2e/bi_test.go): reflect_sqlalchemy.py HOST PORT glint|mariadb.
# Warnings are printed as lines of the output, without their source files.
import sys
import warnings

import pandas as pd
import sqlalchemy as sa

host, port, server = sys.argv[1], int(sys.argv[2]), sys.argv[3]
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    eng = sa.create_engine(f"mysql+pymysql://root@{host}:{port}/glint")
    insp = sa.inspect(eng)
    print("tables:", insp.get_table_names())
    print("has_table books:", insp.has_table("books"), "nope:", insp.has_table("nope"))
    for table in insp.get_table_names():
        for c in insp.get_columns(table):
            print(f"column {table}.{c['name']}: {c['type']!r} nullable={c['nullable']}")
        print(f"pk {table}:", insp.get_pk_constraint(table)["constrained_columns"])
        print(f"indexes {table}:", insp.get_indexes(table))
        print(f"foreign keys {table}:", insp.get_foreign_keys(table))
    md = sa.MetaData()
    books = sa.Table("books", md, autoload_with=eng)
    print("reflected:", [c.name for c in books.columns], "key:", [c.name for c in books.primary_key])
    with eng.connect() as conn:
        rows = conn.execute(sa.select(books.c.id, books.c.title).where(books.c.id > 1).order_by(books.c.id)).all()
        print("select:", rows)
    df = pd.read_sql_table("books", eng)
    print(df.sort_values("id").to_string())
    if server == "glint":
        print(pd.read_sql_query("SELECT id, title FROM books WHERE MATCH('hobbit | emma') ORDER BY id", eng).to_string())
for w in sorted({str(w.message) for w in caught}):
    print("warning:", w)

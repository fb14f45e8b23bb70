# ODBC catalog functions through the MariaDB ODBC driver, on glint or on
# MariaDB with the same tables (e2e/bi_test.go): odbc.py HOST PORT DRIVER glint|mariadb.
import sys

import pyodbc

host, port, driver, server = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
cn = pyodbc.connect(f"DRIVER={{{driver}}};SERVER={host};PORT={port};DATABASE=glint;UID=root;PWD=", autocommit=True)
cur = cn.cursor()


def show(name, rows):
    print(name)
    for r in rows:
        print("  ", tuple(r))


show("SQLTables(glint)", cur.tables(catalog="glint").fetchall())
show("SQLTables(books)", cur.tables(table="books").fetchall())
show("SQLColumns(books)", cur.columns(table="books").fetchall())
show("SQLColumns(notes)", cur.columns(table="notes").fetchall())
show("SQLPrimaryKeys(books)", cur.primaryKeys("books").fetchall())
show("SQLStatistics(books)", cur.statistics("books").fetchall())
show("SQLForeignKeys(books)", cur.foreignKeys(table="books").fetchall())
show("SQLGetTypeInfo(VARCHAR)", cur.getTypeInfo(pyodbc.SQL_VARCHAR).fetchall())
if server == "glint":
    show("MATCH(?)", cur.execute("SELECT id, title FROM books WHERE MATCH(?) ORDER BY id", "hobbit | dune").fetchall())

#!/usr/bin/env bash
# The README's HTTP quick start, run with curl against a server at
# $GLINT_HTTP (host:port). TestCurlScript compares its output with
# quickstart.out ("took" masked).
set -euo pipefail
h="http://$GLINT_HTTP"
show() { sed -E 's/^\{"took":[0-9]+,/{"took":0,/'; echo; }

curl -s "$h/sql?mode=raw" -d "CREATE TABLE books (title text, content text, price float)" | show
curl -s "$h/insert" -d '{"table": "books", "id": 1, "doc": {"title": "The Hobbit", "content": "In a hole in the ground there lived a hobbit.", "price": 9.5}}' | show
printf '%s\n' \
  '{"insert": {"table": "books", "id": 2, "doc": {"title": "Moby Dick", "content": "Call me Ishmael.", "price": 12}}}' \
  '{"insert": {"table": "books", "id": 3, "doc": {"title": "The Sea Wolf", "content": "A hole of fog at sea.", "price": 7.25}}}' |
  curl -s "$h/bulk" -H 'Content-Type: application/x-ndjson' --data-binary @- | show
curl -s "$h/search" -d '{"table": "books", "query": {"match": {"*": "hole"}}, "highlight": {"fields": ["content"]}, "_source": ["title"]}' | show
curl -s "$h/search" -d '{"table": "books", "query": {"bool": {"must": {"query_string": "hole"}, "filter": {"range": {"price": {"lt": 9}}}}}}' | show
curl -s "$h/update" -d '{"table": "books", "id": 3, "doc": {"price": 8}}' | show
curl -s "$h/delete" -d '{"table": "books", "id": 2}' | show
curl -s "$h/sql" --data-urlencode "query=SELECT id, price FROM books" | show
# A form written as is: its ';' stays in the statement, as the reference reads it.
curl -s "$h/sql" -d "mode=raw&query=SELECT id FROM books WHERE MATCH('hole'); SELECT COUNT(*) AS n FROM books" | show
curl -s -o /dev/null -w '%{http_code}\n' "$h/search" -d '{"table": "books", "query": {"match": {"nosuch": "x"}}}'
curl -s "$h/search" -d '{"table": "books", "query": {"match": {"nosuch": "x"}}}' | show

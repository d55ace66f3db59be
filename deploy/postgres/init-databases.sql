-- Run once by the postgres image on an empty data volume (/docker-entrypoint-initdb.d), as the
-- POSTGRES_USER, after it created POSTGRES_DB (identity). Recall keeps its records in a database
-- of its own: each service migrates its own schema and neither can touch the other's tables.
CREATE DATABASE recall;

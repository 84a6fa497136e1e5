-- The `inventory` sample database of Debezium's tutorial: products, stock, customers, their
-- addresses, orders, and a table of geometries. Loaded once, when the MySQL volume is empty, and by
-- `make demo` (scripts/demo.py) into its private MariaDB: keep it plain SQL both servers accept.
CREATE DATABASE IF NOT EXISTS inventory;
USE inventory;

CREATE TABLE products (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  description VARCHAR(512),
  weight FLOAT
) AUTO_INCREMENT = 101;

INSERT INTO products (name, description, weight) VALUES
  ('scooter', 'Small 2-wheel scooter', 3.14),
  ('car battery', '12V car battery', 8.1),
  ('12-pack drill bits', '12-pack of drill bits with sizes ranging from #40 to #3', 0.8),
  ('hammer', '12oz carpenter''s hammer', 0.75),
  ('hammer', '14oz carpenter''s hammer', 0.875),
  ('hammer', '16oz carpenter''s hammer', 1.0),
  ('rocks', 'box of assorted rocks', 5.3),
  ('jacket', 'water resistent black wind breaker', 0.1),
  ('spare tire', '24 inch spare tire', 22.2);

CREATE TABLE products_on_hand (
  product_id INTEGER NOT NULL PRIMARY KEY,
  quantity INTEGER NOT NULL,
  FOREIGN KEY (product_id) REFERENCES products(id)
);

INSERT INTO products_on_hand VALUES
  (101, 3), (102, 8), (103, 18), (104, 4), (105, 5), (106, 0), (107, 44), (108, 2), (109, 5);

CREATE TABLE customers (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  first_name VARCHAR(255) NOT NULL,
  last_name VARCHAR(255) NOT NULL,
  email VARCHAR(255) NOT NULL UNIQUE KEY
) AUTO_INCREMENT = 1001;

INSERT INTO customers (first_name, last_name, email) VALUES
  ('Sally', 'Thomas', 'sally.thomas@acme.com'),
  ('George', 'Bailey', 'gbailey@foobar.com'),
  ('Edward', 'Walker', 'ed@walker.com'),
  ('Anne', 'Kretchmar', 'annek@noanswer.org');

CREATE TABLE addresses (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  customer_id INTEGER NOT NULL,
  street VARCHAR(255) NOT NULL,
  city VARCHAR(255) NOT NULL,
  state VARCHAR(255) NOT NULL,
  zip VARCHAR(255) NOT NULL,
  type ENUM('SHIPPING', 'BILLING', 'LIVING') NOT NULL,
  FOREIGN KEY address_customer (customer_id) REFERENCES customers(id)
) AUTO_INCREMENT = 10;

INSERT INTO addresses (customer_id, street, city, state, zip, type) VALUES
  (1001, '3183 Moore Avenue', 'Euless', 'Texas', '76036', 'SHIPPING'),
  (1001, '2389 Hidden Valley Road', 'Harrisburg', 'Pennsylvania', '17116', 'BILLING'),
  (1002, '281 Riverside Drive', 'Augusta', 'Georgia', '30901', 'BILLING'),
  (1003, '3787 Brownton Road', 'Columbus', 'Mississippi', '39701', 'SHIPPING'),
  (1003, '2458 Lost Creek Road', 'Bethlehem', 'Pennsylvania', '18018', 'SHIPPING'),
  (1003, '4800 Simpson Square', 'Hillsdale', 'Oklahoma', '74743', 'BILLING'),
  (1004, '1289 University Hill Road', 'Canehill', 'Arkansas', '72717', 'LIVING');

CREATE TABLE orders (
  order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  order_date DATE NOT NULL,
  purchaser INTEGER NOT NULL,
  quantity INTEGER NOT NULL,
  product_id INTEGER NOT NULL,
  FOREIGN KEY order_customer (purchaser) REFERENCES customers(id),
  FOREIGN KEY ordered_product (product_id) REFERENCES products(id)
) AUTO_INCREMENT = 10001;

INSERT INTO orders (order_date, purchaser, quantity, product_id) VALUES
  ('2016-01-16', 1001, 1, 102),
  ('2016-01-17', 1002, 2, 105),
  ('2016-02-19', 1002, 2, 106),
  ('2016-02-21', 1003, 1, 107);

CREATE TABLE geom (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  g GEOMETRY NOT NULL,
  h GEOMETRY
);

INSERT INTO geom (g) VALUES
  (ST_GeomFromText('POINT(1 1)')),
  (ST_GeomFromText('LINESTRING(2 1, 6 6)')),
  (ST_GeomFromText('POLYGON((0 5, 2 5, 2 7, 0 7, 0 5))'));

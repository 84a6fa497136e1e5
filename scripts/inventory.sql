-- The Debezium tutorial's `inventory` database (products, stock, customers, addresses,
-- orders), for `make demo` and the docker set-up. Plain SQL for MariaDB 10.11 and MySQL 8/9.
-- The tutorial's `geom` table (spatial types) is left out.
CREATE DATABASE IF NOT EXISTS inventory;
USE inventory;

CREATE TABLE products (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  description VARCHAR(512),
  weight FLOAT
) AUTO_INCREMENT = 101;
INSERT INTO products VALUES
  (DEFAULT, 'scooter', 'Small 2-wheel scooter', 3.14),
  (DEFAULT, 'car battery', '12V car battery', 8.1),
  (DEFAULT, '12-pack drill bits', '12-pack of drill bits with sizes ranging from #40 to #3', 0.8),
  (DEFAULT, 'hammer', '12oz carpenter''s hammer', 0.75),
  (DEFAULT, 'hammer', '14oz carpenter''s hammer', 0.875),
  (DEFAULT, 'hammer', '16oz carpenter''s hammer', 1.0),
  (DEFAULT, 'rocks', 'box of assorted rocks', 5.3),
  (DEFAULT, 'jacket', 'water resistent black wind breaker', 0.1),
  (DEFAULT, 'spare tire', '24 inch spare tire', 22.2);

CREATE TABLE products_on_hand (
  product_id INTEGER NOT NULL PRIMARY KEY,
  quantity INTEGER NOT NULL,
  FOREIGN KEY (product_id) REFERENCES products(id)
);
INSERT INTO products_on_hand VALUES (101, 3), (102, 8), (103, 18), (104, 4), (105, 5), (106, 0), (107, 44), (108, 2), (109, 5);

CREATE TABLE customers (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  first_name VARCHAR(255) NOT NULL,
  last_name VARCHAR(255) NOT NULL,
  email VARCHAR(255) NOT NULL UNIQUE KEY
) AUTO_INCREMENT = 1001;
INSERT INTO customers VALUES
  (DEFAULT, 'Sally', 'Thomas', 'sally.thomas@acme.com'),
  (DEFAULT, 'George', 'Bailey', 'gbailey@foobar.com'),
  (DEFAULT, 'Edward', 'Walker', 'ed@walker.com'),
  (DEFAULT, 'Anne', 'Kretchmar', 'annek@noanswer.org');

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
INSERT INTO addresses VALUES
  (DEFAULT, 1001, '3183 Moore Avenue', 'Euless', 'Texas', '76036', 'SHIPPING'),
  (DEFAULT, 1001, '2389 Hidden Valley Road', 'Harrisburg', 'Pennsylvania', '17116', 'BILLING'),
  (DEFAULT, 1002, '281 Riverside Drive', 'Augusta', 'Georgia', '30901', 'BILLING'),
  (DEFAULT, 1003, '3787 Brownton Road', 'Columbus', 'Mississippi', '39701', 'SHIPPING'),
  (DEFAULT, 1003, '2458 Lost Creek Road', 'Bethlehem', 'Pennsylvania', '18018', 'SHIPPING'),
  (DEFAULT, 1003, '4800 Simpson Square', 'Hillsdale', 'Oklahoma', '74743', 'BILLING'),
  (DEFAULT, 1004, '1289 University Hill Road', 'Canehill', 'Arkansas', '72717', 'LIVING');

CREATE TABLE orders (
  order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  order_date DATE NOT NULL,
  purchaser INTEGER NOT NULL,
  quantity INTEGER NOT NULL,
  product_id INTEGER NOT NULL,
  FOREIGN KEY order_customer (purchaser) REFERENCES customers(id),
  FOREIGN KEY ordered_product (product_id) REFERENCES products(id)
) AUTO_INCREMENT = 10001;
INSERT INTO orders VALUES
  (DEFAULT, '2016-01-16', 1001, 1, 102),
  (DEFAULT, '2016-01-17', 1002, 2, 105),
  (DEFAULT, '2016-02-19', 1002, 2, 106),
  (DEFAULT, '2016-02-21', 1003, 1, 107);

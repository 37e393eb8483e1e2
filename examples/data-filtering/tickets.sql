-- A help desk's tickets: which of them may a user see?
CREATE TABLE tickets (
  id       INTEGER PRIMARY KEY,
  tenant   TEXT    NOT NULL,
  title    TEXT    NOT NULL,
  owner    TEXT    NOT NULL,  -- who opened it
  assignee TEXT,              -- NULL: nobody yet
  status   TEXT    NOT NULL,  -- open, pending, resolved, closed
  priority INTEGER NOT NULL,  -- 1 (low) .. 5 (urgent)
  public   INTEGER NOT NULL   -- 0 or 1: shown to the whole tenant
);

INSERT INTO tickets VALUES
  (1,  'acme',    'Printer on fire',          'alice', 'bob',   'open',     5, 0),
  (2,  'acme',    'VPN drops every hour',     'carol', 'bob',   'pending',  3, 0),
  (3,  'acme',    'New laptop for Dave',      'dave',  NULL,    'open',     2, 0),
  (4,  'acme',    'Office wifi password',     'alice', 'erin',  'resolved', 1, 1),
  (5,  'acme',    'Payroll export fails',     'carol', 'erin',  'open',     4, 0),
  (6,  'acme',    'Old ticket, kept for audit','dave', 'bob',   'closed',   3, 0),
  (7,  'globex',  'Badge reader offline',     'hank',  'bob',   'open',     4, 0),
  (8,  'globex',  'Meeting room booking',     'ivy',   NULL,    'pending',  2, 1),
  (9,  'globex',  'Mail quota exceeded',      'hank',  'judy',  'open',     3, 0),
  (10, 'acme',    'Intranet is slow',         'erin',  NULL,    'pending',  3, 1),
  (11, 'initech', 'TPS report template',      'peter', 'milton','open',     1, 0),
  (12, 'acme',    'Phishing mail reported',   'bob',   'erin',  'closed',   5, 1);

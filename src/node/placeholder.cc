// Keeps the library non-empty in checkouts without simulator sources.

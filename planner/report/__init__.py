"""Reports from run folders: the template context, charts, rendering; the default templates ship in templates/ here."""

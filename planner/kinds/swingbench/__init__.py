"""Swingbench: charbench and oewizard (SOE), an OLTP load on Oracle."""

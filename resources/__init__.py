"""The files the app ships with (scenarios, samples, the demo tools' sample files), installed
as the package ``inspector.resources`` (setup.py maps this folder there). This file only lets
an editable install import the folder; read it through ``inspector.core.base.resources``."""

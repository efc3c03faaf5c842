"""Money the way finance books it (issue 14): rental billing modes, depreciation, NPV and a multi-year horizon.

Modules: :mod:`economics.finance.terms` (the billing terms of a rented offer), :mod:`economics.finance.rental`
(effective hourly rates, commitments, what a billing mode cannot carry), :mod:`economics.finance.depreciation`
(book and economic views of owned capacity), :mod:`economics.finance.npv` (discounting) and
:mod:`economics.finance.horizon` (re-planning year by year). This package file imports nothing, so that
:mod:`economics.offers` can import the terms model without a cycle.
"""

// Placeholder until the feature lands.

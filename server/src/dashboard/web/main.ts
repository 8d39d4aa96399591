import { startDashboard } from './app.ts';
import { identityFromLocation } from './connection.ts';
import { wireSkipLink } from './skip-link.ts';

wireSkipLink(document);
const root = document.getElementById('app');
if (root) startDashboard(root, identityFromLocation(window.location, window.history));

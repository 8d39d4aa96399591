import { startDashboard } from './app.ts';
import { identityFromLocation } from './connection.ts';

const root = document.getElementById('app');
if (root) startDashboard(root, identityFromLocation(window.location, window.history));

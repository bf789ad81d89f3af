// Entry of /widget.js: built alone as an IIFE with no dependencies (vite.widget.config.ts
// fails the build above its size budget).

import { createCheckout } from './embed';
import { install } from './install';

install(window, createCheckout);

import { defineConfig } from 'vite';
import tsad from 'tsad/vite';

export default defineConfig({ plugins: [tsad()] });

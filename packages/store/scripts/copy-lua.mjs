// The build's copy step (src/lua → dist/lua), the one @hitl/store exports as copyLuaFiles.
import { copyLuaFiles } from '../dist/lua-kit/copy-lua.js';

copyLuaFiles(new URL('../', import.meta.url));

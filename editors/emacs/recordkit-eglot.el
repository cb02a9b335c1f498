;;; recordkit-eglot.el --- recordkit's language server in Emacs with eglot  -*- lexical-binding: t; -*-

;; Eglot is built into Emacs 29 and later; on Emacs 28 install it from
;; GNU ELPA (Debian: elpa-eglot).  Put this in your init file, or load it.
;; Eglot starts one `recordkit lsp' a project (project.el's root: the VC
;; root); the server finds the recordkit configuration from that folder.

(require 'eglot)

(add-to-list 'eglot-server-programs
             '((markdown-mode gfm-mode)
               . ("recordkit" "lsp"
                  :initializationOptions (:debounce 150 :lintOn "type"))))

;; Settings changed while the server runs (workspace/didChangeConfiguration);
;; e.g. (:recordkit (:features (:symbols :json-false))) beside marksman.
(setq-default eglot-workspace-configuration
              '(:recordkit (:debounce 150 :lintOn "type")))

(defun recordkit-eglot--pyproject-p (dir)
  "Whether DIR has a pyproject.toml with a [tool.recordkit] table."
  (let ((file (expand-file-name "pyproject.toml" dir)))
    (and (file-readable-p file)
         (with-temp-buffer
           (insert-file-contents file)
           (re-search-forward
            "^[ \t]*\\[[ \t]*tool[ \t]*\\.[ \t]*recordkit[ \t]*[].]" nil t)))))

(defun recordkit-eglot-maybe ()
  "Start eglot in a Markdown buffer under a recordkit configuration."
  (when (and buffer-file-name
             (or (locate-dominating-file buffer-file-name "recordkit.toml")
                 (locate-dominating-file buffer-file-name
                                         #'recordkit-eglot--pyproject-p)))
    (eglot-ensure)))

(add-hook 'markdown-mode-hook #'recordkit-eglot-maybe)
(add-hook 'gfm-mode-hook #'recordkit-eglot-maybe)

(provide 'recordkit-eglot)
;;; recordkit-eglot.el ends here
